#!/bin/sh
# SPDX-License-Identifier: MIT
# t0895-completion.sh - contrib/bash-completion/preflight completes every
# option of --help (main and each subcommand), the subcommands, check names
# and tags for --only/--skip, --set CHECK. then CHECK.KEY= from --describe,
# formats per subcommand, shipped profiles by name.  All of it comes from the
# binary: an option, check or setting added later completes without an edit.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"
command -v bash >/dev/null || skip_all "no bash"

# comp WORD...: the completions of the last word (the cursor at its end)
comp() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_preflight; printf "%s\n" "${COMPREPLY[@]}"' sh \
		"$PF_SOURCE_DIR/contrib/bash-completion/preflight" "$PREFLIGHT" "$@" | sort
}
has() { printf '%s\n' "$1" | grep -qxF -- "$2"; }

# every option of `preflight --help`, and of each subcommand's --help
for sub in "" fleet diff snapshot "profile capture"; do
	# shellcheck disable=SC2086
	opts=$("$PREFLIGHT" $sub --help | grep -v -E '^(usage:)? *preflight ' |
		grep -o -- '--[a-z][a-z-]*' | sort -u)
	# shellcheck disable=SC2086
	got=$(comp $sub --)
	missing=$(printf '%s\n' "$opts" | while read -r o; do has "$got" "$o" || echo "$o"; done)
	[ -z "$missing" ] && ok "'preflight $sub --' completes all $(echo "$opts" | wc -l) options" ||
		not_ok "'preflight $sub --' misses: $missing"
done
has "$(comp --)" --all && has "$(comp --)" --check-config && has "$(comp fleet --)" --recursive &&
	ok "new options are among them" || not_ok "--all, --check-config or fleet --recursive missing"

# subcommands
got=$(comp "")
for s in fleet diff snapshot profile; do has "$got" "$s" || not_ok "subcommand $s not completed"; done
[ "$(comp profile "")" = capture ] || not_ok "profile <TAB>: $(comp profile "")"

# --only/--skip: every check and every tag, after a comma too
got=$(comp --only "")
for c in $("$PREFLIGHT" --list | awk '{print $1}'); do has "$got" "$c" || not_ok "--only: check $c missing"; done
for t in static traffic rdma gpu; do has "$got" "$t" || not_ok "--only: tag $t missing"; done
[ "$(comp --skip sysctl,traf)" = "sysctl,traffic" ] && ok "--skip sysctl,traf -> sysctl,traffic" ||
	not_ok "--skip sysctl,traf: $(comp --skip sysctl,traf)"

# --set: CHECK. then the check's keys from --describe
has "$(comp --set nic_l)" "nic_link_speed." && ok "--set nic_l -> nic_link_speed." ||
	not_ok "--set nic_l: $(comp --set nic_l)"
got=$(comp --set nic_link_speed.)
keys=$("$PREFLIGHT" --describe nic_link_speed | sed -n '/^parameters/,$ s/^  \([a-z0-9_]*\)  .*/\1/p')
[ -n "$keys" ] || not_ok "no keys in --describe nic_link_speed"
for k in $keys; do has "$got" "nic_link_speed.$k=" || not_ok "--set: nic_link_speed.$k= missing"; done
[ "$(comp --set nic_link_speed.min_r)" = "nic_link_speed.min_rate_gbps=" ] &&
	ok "--set nic_link_speed.min_r -> min_rate_gbps=" || not_ok "--set key: $(comp --set nic_link_speed.min_r)"

# formats per command, --drain-on, profiles by name
[ "$(comp fleet --format c)" = csv ] || not_ok "fleet --format c: $(comp fleet --format c)"
[ "$(comp diff --format "" | tr '\n' ' ')" = "json text " ] || not_ok "diff --format: $(comp diff --format "")"
[ "$(comp --format ju)" = junit ] || not_ok "--format ju"
[ "$(comp --drain-on e)" = error ] || not_ok "--drain-on e"
has "$(comp --profile dgx-h)" dgx-h100 && ok "--profile dgx-h -> dgx-h100 (PREFLIGHT_PROFILE_PATH)" ||
	not_ok "--profile dgx-h: $(comp --profile dgx-h)"
# issue 20 item 5: an option of another subcommand is not offered at the top level
[ -z "$(comp --wi)" ] && ok "--wi: --window (snapshot's) not offered at the top level" ||
	not_ok "--wi offers $(comp --wi)"
[ "$(comp snapshot --wi)" = --window ] || not_ok "snapshot --wi: $(comp snapshot --wi)"
# every top-level option offered is one the binary accepts
for o in $(comp --); do
	"$PREFLIGHT" --no-config "$o" --check-config --help 2>&1 >/dev/null | grep -q "unknown option" &&
		not_ok "offered $o, which the binary rejects"
done
# profile names: exactly what --list-profiles prints (the names --profile accepts)
[ "$(comp --profile "" | grep -v / | tr '\n' ' ')" = "$("$PREFLIGHT" --list-profiles | sort | tr '\n' ' ')" ] &&
	ok "--profile <TAB>: the names the binary accepts" || not_ok "--profile names: $(comp --profile "")"
has "$(comp --describe gpu_)" gpu_inventory || not_ok "--describe gpu_"

done_testing
