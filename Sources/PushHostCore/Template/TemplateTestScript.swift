/// The template's `test/run.sh`: runs the plugin under the real pushhost
/// binary, as a user's pipe would, and checks the report and the log.
struct TemplateTestScript {
    let template: PluginTemplate

    var text: String {
        let name = template.name
        let runs = template.plays(.source)
            ? """
            # A host with a source runs until it is stopped: each run waits for its
            # report lines (30 s at most), then stops the host with SIGTERM, as a
            # service manager would.
            run_until_reported test/messages.ndjson "$work/report.ndjson" test/expected.txt
            run_until_reported /dev/null "$work/source.ndjson" test/expected-source.txt --set \(name).records=test/records.ndjson
            check "$work/report.ndjson" test/expected.txt
            check "$work/source.ndjson" test/expected-source.txt
            """
            : """
            run test/messages.ndjson "$work/report.ndjson"
            check "$work/report.ndjson" test/expected.txt
            """
        return """
            #!/usr/bin/env bash
            # Runs the plugin \(name) under pushhost with the records of test/, and checks
            # what comes out: each line of test/expected*.txt must be found in the
            # report line at the same place (the report has one JSON line per record,
            # in order), and each line of test/expected.log in pushhost's log.
            #
            #     PUSHHOST   the pushhost binary (default: pushhost, found on PATH)
            #     PLUGIN     the plugin file (default: ./lib\(name).so)
            set -euo pipefail
            cd "$(dirname "$0")/.."
            pushhost=${PUSHHOST:-pushhost}
            plugin=${PLUGIN:-./lib\(name).so}
            work=$(mktemp -d)
            trap 'rm -rf "$work"' EXIT
            failed=0
            runs=0

            # run INPUT REPORT [OPTION...]: one run that ends with its input, with a
            # state folder of its own (a test never touches a real token).
            run() {
                local input=$1 report=$2
                shift 2
                runs=$((runs + 1))
                local status=0
                "$pushhost" run --plugin "$plugin" --state "$work/state-$runs" --report "$report" "$@" \\
                    < "$input" 2>> "$work/log" || status=$?
                if [ "$status" -ne 0 ]; then
                    echo "FAIL: pushhost exited with status $status; its log:"
                    cat "$work/log"
                    exit 1
                fi
            }

            # run_until_reported INPUT REPORT EXPECTED [OPTION...]: one run, stopped
            # once REPORT has as many lines as EXPECTED.
            run_until_reported() {
                local input=$1 report=$2 expected=$3
                shift 3
                runs=$((runs + 1))
                "$pushhost" run --plugin "$plugin" --state "$work/state-$runs" --report "$report" "$@" \\
                    < "$input" 2>> "$work/log" &
                local pid=$! want tries=0 status=0
                want=$(wc -l < "$expected")
                while kill -0 "$pid" 2>/dev/null && [ "$(cat "$report" 2>/dev/null | wc -l)" -lt "$want" ] && [ $tries -lt 300 ]; do
                    sleep 0.1
                    tries=$((tries + 1))
                done
                kill -TERM "$pid" 2>/dev/null || true
                wait "$pid" || status=$?
                if [ "$status" -ne 0 ]; then
                    echo "FAIL: pushhost exited with status $status; its log:"
                    cat "$work/log"
                    exit 1
                fi
            }

            # check REPORT EXPECTED: line N of REPORT holds line N of EXPECTED, and
            # neither has more lines.
            check() {
                local report=$1 expected=$2 i
                local -a got want
                mapfile -t got < <(cat "$report" 2>/dev/null)
                mapfile -t want < "$expected"
                for ((i = 0; i < ${#want[@]} || i < ${#got[@]}; i++)); do
                    if ((i >= ${#got[@]})); then
                        echo "FAIL $expected:$((i + 1)): no report line; expected one with: ${want[i]}"
                    elif ((i >= ${#want[@]})); then
                        echo "FAIL $expected: one report line more than expected: ${got[i]}"
                    elif [[ "${got[i]}" != *"${want[i]}"* ]]; then
                        echo "FAIL $expected:$((i + 1)):"
                        echo "  expected: ${want[i]}"
                        echo "  got:      ${got[i]}"
                    else
                        continue
                    fi
                    failed=1
                done
            }

            \(runs)
            while IFS= read -r line; do
                grep -qF -- "$line" "$work/log" || { echo "FAIL test/expected.log: no log line with: $line"; failed=1; }
            done < test/expected.log

            if [ "$failed" -ne 0 ]; then
                echo "pushhost's log:"
                cat "$work/log"
                exit 1
            fi
            echo "ok: \(name) passed ($runs runs)"

            """
    }
}
