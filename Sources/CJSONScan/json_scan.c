/* The vector step is all inline, in include/json_scan.h. */
#include "json_scan.h"
