#ifndef C_GUARDED_COPY_H
#define C_GUARDED_COPY_H

#include <stddef.h>

/// Copies `length` bytes from `source` to `destination` and returns 0, or returns -1 if the
/// copy raised SIGBUS: `destination` lies in a shared mapping of a file whose pages could not
/// be had (the file was cut short under the mapping, or a sparse block could not be allocated).
/// The bytes are then partly copied. A SIGBUS raised anywhere else is passed on to the handler
/// that was installed before, or to the default action.
int guarded_copy(void *destination, const void *source, size_t length);

#endif
