/* Tmk.h - the TreadMarks distribution's name for tmk.h: both are installed. */
#include "tmk.h"
