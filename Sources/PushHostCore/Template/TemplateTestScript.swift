/// The template's `test/run.sh`: a dry run of the plugin, then runs under the
/// real pushhost binary, as a user's pipe would, each report held against
/// its expected lines by `pushhost check`, and the log.
struct TemplateTestScript {
    let template: PluginTemplate

    var text: String {
        let name = template.name
        let runs = template.plays(.source)
            ? """
            # A host with a source runs until it is stopped: each run waits for its
            # report lines (30 s at most), then stops the host with SIGTERM, as a
            # service manager would.
            run_until_reported test/messages.ndjson "$work/report.ndjson" test/expected.ndjson
            run_until_reported /dev/null "$work/source.ndjson" test/expected-source.ndjson --set \(name).records=test/records.ndjson
            check "$work/report.ndjson" test/expected.ndjson
            check "$work/source.ndjson" test/expected-source.ndjson
            """
            : """
            run test/messages.ndjson "$work/report.ndjson"
            check "$work/report.ndjson" test/expected.ndjson
            """
        return """
            #!/usr/bin/env bash
            # Tests the plugin \(name) under pushhost with the records of test/:
            # - `pushhost plugins --check` creates it and destroys it (a dry run);
            # - each run pipes records into `pushhost run --ephemeral` (a state folder
            #   of its own, removed at exit: a test never touches a real token);
            # - `pushhost check` holds each run's report against test/expected*.ndjson
            #   (only the fields named there are compared) and writes JUnit XML;
            # - each line of test/expected.log must be found in pushhost's log.
            #
            #     PUSHHOST   the pushhost binary (default: pushhost, found on PATH)
            #     PLUGIN     the plugin file (default: ./\(template.pluginFile))
            #     RESULTS    where the JUnit XML files go (default: test/results)
            set -euo pipefail
            cd "$(dirname "$0")/.."
            pushhost=${PUSHHOST:-pushhost}
            plugin=${PLUGIN:-./\(template.pluginFile)}
            # A process manifest is loaded with --process, a library with --plugin.
            case $plugin in
                *.process.json) load=--process ;;
                *) load=--plugin ;;
            esac
            results=${RESULTS:-test/results}
            work=$(mktemp -d)
            trap 'rm -rf "$work"' EXIT
            mkdir -p "$results"
            failed=0
            runs=0

            # fail WHAT STATUS: pushhost did not do its part; show its log and stop.
            fail() {
                echo "FAIL: $1 exited with status $2; pushhost's log:"
                cat "$work/log"
                exit 1
            }

            # run INPUT REPORT [OPTION...]: one run that ends with its input.
            run() {
                local input=$1 report=$2 status=0
                shift 2
                runs=$((runs + 1))
                "$pushhost" run "$load" "$plugin" --ephemeral --report "$report" "$@" \\
                    < "$input" 2>> "$work/log" || status=$?
                [ "$status" -eq 0 ] || fail "pushhost run" "$status"
            }

            # run_until_reported INPUT REPORT EXPECTED [OPTION...]: one run, stopped
            # once REPORT has as many lines as EXPECTED.
            run_until_reported() {
                local input=$1 report=$2 expected=$3
                shift 3
                runs=$((runs + 1))
                "$pushhost" run "$load" "$plugin" --ephemeral --report "$report" "$@" \\
                    < "$input" 2>> "$work/log" &
                local pid=$! want tries=0 status=0
                want=$(grep -c . "$expected")
                while kill -0 "$pid" 2>/dev/null && [ "$(cat "$report" 2>/dev/null | wc -l)" -lt "$want" ] && [ $tries -lt 300 ]; do
                    sleep 0.1
                    tries=$((tries + 1))
                done
                kill -TERM "$pid" 2>/dev/null || true
                wait "$pid" || status=$?
                [ "$status" -eq 0 ] || fail "pushhost run" "$status"
            }

            # check REPORT EXPECTED: pushhost check, which exits 5 when they differ.
            check() {
                local report=$1 expected=$2 status=0
                echo "$expected:"
                "$pushhost" check "$report" "$expected" --junit "$results/$(basename "$expected" .ndjson).xml" || status=$?
                case $status in
                    0) ;;
                    5) failed=1 ;;
                    *) fail "pushhost check" "$status" ;;
                esac
            }

            status=0
            "$pushhost" plugins --check "$load" "$plugin" > "$work/dry-run" 2>> "$work/log" || status=$?
            if [ "$status" -ne 0 ]; then
                cat "$work/dry-run"
                fail "pushhost plugins --check" "$status"
            fi
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
