// Darwin's <sys/socket.h>: SOCK_STREAM is a plain int macro (Glibc: an enum), so the Apple
// branch's `streamType = SOCK_STREAM` is an Int32 there.
import Glibc
let SOCK_STREAM: Int32 = 1
