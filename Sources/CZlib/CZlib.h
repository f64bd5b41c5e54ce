// The system zlib (Debian's zlib1g-dev, which libvips-dev already pulls in; the macOS
// SDK's own). Used only for crc32: the ZIP download stores its files uncompressed, and
// zlib's CRC-32 is several times faster than a table-driven one in Swift.
#include <zlib.h>
