#!/bin/sh
set -e
echo "step 1"
exit 0
}

main() {
echo "step 1"
echo "step 2"
exit 0
