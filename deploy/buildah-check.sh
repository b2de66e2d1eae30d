#!/usr/bin/env bash
# Build deploy/Dockerfile without a Docker daemon and try the image: buildah (vfs storage, chroot
# isolation) as root on Debian, on a bookworm base made with debootstrap, because a machine
# without access to a container registry cannot pull python:3.11-slim-bookworm. A manual check
# (about 5 minutes and 1 GB of disk; not part of tests/run):
#   apt-get install -y buildah debootstrap && deploy/buildah-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# Debian's python3 is 3.11 on bookworm, as in the slim image; python-is-python3 gives `python`;
# python3-dev gives the headers the slim image has, for the compiled build.
debootstrap --variant=minbase \
  --include=python3,python3-venv,python3-pip,python3-dev,python-is-python3,ca-certificates \
  bookworm "$root" >/dev/null
# A machine behind a TLS-inspecting proxy needs its CA inside the build too.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
base=$(buildah from scratch)
buildah copy --quiet "$base" "$root" /
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env PIP_CERT=/etc/ssl/certs/ca-certificates.crt "$base"
buildah commit --quiet --rm "$base" localhost/python-bookworm-check >/dev/null

buildah bud --layers=false --build-arg PYTHON_IMAGE=localhost/python-bookworm-check \
  -f deploy/Dockerfile -t localhost/scrubber:check .
buildah inspect --format '{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.Cmd}}' \
  localhost/scrubber:check
ctr=$(buildah from localhost/scrubber:check)
echo 'my ssn is 524-59-3318, mail jane@example.com' \
  | buildah run --user 10001:10001 "$ctr" -- scrubber scrub --level 3
buildah run --user 10001:10001 "$ctr" -- scrubber --version
buildah rm "$ctr" >/dev/null
buildah rmi localhost/scrubber:check localhost/python-bookworm-check >/dev/null
