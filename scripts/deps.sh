#!/bin/sh
# Install the Debian packages gpuprof needs; a fast no-op when all are present. PostgreSQL and ClickHouse
# are for tests/warehouse.py, which starts servers of its own in a temporary directory.
#   scripts/deps.sh         build and test dependencies
#   scripts/deps.sh fuzz    also clang with libFuzzer
set -e
pkgs="build-essential pkg-config libsqlite3-dev sqlite3 libpcre2-dev libxlsxwriter-dev
zlib1g-dev python3 python3-openpyxl python3-jsonschema chromium groff-base man-db
postgresql clickhouse-server clickhouse-client"
[ "$1" = fuzz ] && pkgs="$pkgs clang libclang-rt-dev"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "scripts/deps.sh: missing packages:$missing" >&2
	echo "scripts/deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 4
fi
echo "scripts/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# The database servers are only for the tests, which start their own: their packages must not start (or
# leave enabled) a system service. policy-rc.d refuses service starts while this install runs.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT	# also when the install is cut short
	trap 'exit 130' INT TERM
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	policy=1
fi
rc=0
apt-get install -y -qq --no-install-recommends $missing >&2 || rc=$?
[ -n "$policy" ] && rm -f /usr/sbin/policy-rc.d && trap - EXIT
for svc in postgresql clickhouse-server; do
	case " $missing " in
	*" $svc "*) command -v systemctl >/dev/null 2>&1 && systemctl disable -q "$svc" >/dev/null 2>&1 || true ;;
	esac
done
exit $rc
