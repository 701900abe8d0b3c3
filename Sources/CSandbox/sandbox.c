/* The walls are all inline, in include/sandbox.h. */
#include "sandbox.h"
