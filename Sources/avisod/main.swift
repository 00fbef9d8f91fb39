print("avisod")
