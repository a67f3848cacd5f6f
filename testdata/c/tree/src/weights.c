/* Data only: no function or loop, so the instrumenter leaves it as is. */
#include "stats.h"

const double tree_weights[4] = {0.5, 1.0, 2.0, 4.0};
