/*
 * detect.h - access detection by page protection: the application view's
 * pages are mapped PROT_NONE / PROT_READ / PROT_READ|PROT_WRITE as the
 * protocol wants, and the SIGSEGV handler turns a fault into a protocol
 * action. A fault outside Tessera's memory is the program's own and is
 * passed on unchanged.
 */
#ifndef TSR_DETECT_H
#define TSR_DETECT_H

void detect_install(void);

#endif
