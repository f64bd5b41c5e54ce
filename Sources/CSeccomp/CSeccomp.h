// The system libseccomp, found through pkg-config (Debian's libseccomp-dev). Only the C
// shim CObscuraSandbox includes it, to build the indexer's filter (docs/SEARCH.md
// §S3.4.2): libseccomp handles the architecture check, the x32 bit and 64-bit argument
// comparisons, where hand-written BPF goes wrong.
#include <seccomp.h>
