import Foundation
import Testing

/// With `--watch`, standard input is read beside the spool: half a line on
/// standard input never holds back a spool file.
@Suite struct StdinBesideSpoolTests {
    @Test func aSpoolFileIsHandledWhileStandardInputHoldsHalfALine() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background])
        let script = #"""
            fifo="$WORK/stdin.fifo"
            mkfifo "$fifo"
            "$PUSHHOST" run --watch "$SPOOL" --state "$STATE" --report "$REPORT" "$@" < "$fifo" 2> "$WORK/host.log" &
            host=$!
            exec 3> "$fifo"
            printf '%s' '{"message_id":"stdin","data":{' >&3
            sleep 0.3
            printf '%s' '{"message_id":"spooled","data":{"rx_gcm_key_target":"b"}}' | "$PUSHHOST" send --to "$SPOOL" > /dev/null
            tries=0
            until grep -q '"spooled"' "$REPORT" 2>/dev/null; do
              tries=$((tries + 1))
              if [ $tries -gt 200 ]; then echo "the spool file waited for standard input" >&2; break; fi
              sleep 0.05
            done
            printf '%s\n' '"rx_gcm_key_target":"a"}}' >&3
            tries=0
            until grep -q '"stdin"' "$REPORT" 2>/dev/null; do
              tries=$((tries + 1))
              if [ $tries -gt 200 ]; then echo "the line on standard input was never handled" >&2; break; fi
              sleep 0.05
            done
            exec 3>&-
            kill -TERM $host
            wait $host
            """#
        let result = try Command.run(
            "/bin/sh", ["-c", script, "sh"] + plugins,
            environment: [
                "PUSHHOST": Paths.pushhost, "WORK": scratch.file(""), "SPOOL": scratch.spool.path,
                "STATE": scratch.file("state"), "REPORT": scratch.file("report.ndjson"),
            ])
        #expect(result.status == 0, "\(result.stderr)\n\(scratch.read("host.log"))")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["bg background spooled", "bg background stdin"])
    }
}
