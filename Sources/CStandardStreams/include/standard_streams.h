#ifndef SCREENWARD_STANDARD_STREAMS_H
#define SCREENWARD_STANDARD_STREAMS_H

/// Opens /dev/null on each of standard input, output and error that is closed, as a
/// program started with them closed (by cron, a service manager, `prog <&- >&-`) needs:
/// otherwise the next file or socket the program opens takes descriptor 0, 1 or 2, its
/// log lines go into that file, and programs it starts inherit it as their stdio.
/// Returns which were opened, as bits (1 << descriptor; 0 when all three were open), or -1
/// with errno.
int screenward_standard_streams_open(void);

#endif
