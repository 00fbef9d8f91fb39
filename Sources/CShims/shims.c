#include "CShims.h"
int aviso_shims_placeholder(void) { return 0; }
