#include "ticks.h"

int pushhost_ticks_use_tsc = 0;

void pushhost_ticks_choose(int use_tsc) {
    pushhost_ticks_use_tsc = use_tsc;
}
