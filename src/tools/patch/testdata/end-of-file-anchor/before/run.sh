#!/bin/sh
set -e
echo "step 1"
exit 0
}

main() {
echo "step 1"
exit 0
