#!/bin/bash -eu
# ClusterFuzzLite runs $SRC/build.sh: the build is OSS-Fuzz's.
exec bash "$SRC/ftkernel/oss-fuzz/build.sh"
