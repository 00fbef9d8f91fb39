print("avisoctl")
