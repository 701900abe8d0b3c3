import Foundation
import Testing

/// With `--watch`, standard input is read beside the spool: half a line on
/// standard input never holds back a spool file.
@Suite struct StdinBesideSpoolTests {
    @Test func aSpoolFileIsHandledWhileStandardInputHoldsHalfALine() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("bg", [.background])
        let script = ShellScript.waitFor + #"""
            fifo="$WORK/stdin.fifo"
            mkfifo "$fifo"
            "$PUSHHOST" run --watch "$SPOOL" --state "$STATE" --report "$REPORT" "$@" < "$fifo" 2> "$WORK/host.log" &
            host=$!
            exec 3> "$fifo"
            printf '%s' '{"message_id":"stdin","data":{' >&3
            sleep 0.3
            printf '%s' '{"message_id":"spooled","data":{"rx_gcm_key_target":"b"}}' | "$PUSHHOST" send --to "$SPOOL" > /dev/null
            wait_for '"spooled"' "$REPORT" "the spool file waited for standard input"
            printf '%s\n' '"rx_gcm_key_target":"a"}}' >&3
            wait_for '"stdin"' "$REPORT" "the line on standard input was never handled"
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
