int aviso_shims_placeholder(void);
