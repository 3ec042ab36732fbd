#ifndef SCREENWARD_PROGRAM_START_H
#define SCREENWARD_PROGRAM_START_H

/// Opens /dev/null on each of standard input, output and error that is closed, as a
/// program started with them closed (by cron, a service manager, `prog <&- >&-`) needs:
/// otherwise the next file or socket the program opens takes descriptor 0, 1 or 2, its
/// log lines go into that file, and programs it starts inherit it as their stdio.
/// Returns which were opened, as bits (1 << descriptor; 0 when all three were open), or -1
/// with errno.
int screenward_standard_streams_open(void);

/// Makes every descriptor this program inherited fit its limit on open files. A parent
/// with a higher limit can hand on one numbered above this program's soft limit (a process
/// holding hundreds of files starts another through runuser, whose session lowers the soft
/// limit to 1024); Foundation's Process then cannot start anything, since it asks to close
/// every descriptor up to the highest open one and the C library refuses a number above
/// the limit (EBADF). Raises the soft limit to the hard one when the highest descriptor
/// needs it, and closes any descriptor at or above even the hard limit. Returns the number
/// of descriptors closed (0 usually), or -1 with errno.
int screenward_inherited_descriptors_fit(void);

/// Raises the soft limit on open files to the hard one, for a program that serves many
/// clients (the system daemon): a user's idle connections must not be able to take the
/// last descriptor it needs to start an agent. Returns the soft limit now (capped at
/// LONG_MAX), or -1 with errno.
long screenward_open_files_limit_raise(void);

#endif
