/* hlrc.h - the page states of the home-based protocol (see hlrc.c), shared
 * with the tests that check its transitions. */
#ifndef TSR_HLRC_H
#define TSR_HLRC_H

enum hlrc_state { INVALID = 0, READ, WRITE, HOME_READ, HOME_WRITE, HOME_STICKY, HOME_EXACT };

#endif
