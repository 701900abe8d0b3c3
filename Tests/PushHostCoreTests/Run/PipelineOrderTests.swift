import CPushHost
import Testing
@testable import PushHostPipeline

/// The pipeline fed records directly, with the `gate` data plugin and
/// interceptor (whose pending verdicts and held turns the test ends, in the
/// order it chooses) and the `shelf` background plugin: report lines come
/// out in arrival order whatever order the verdicts come in.
@Suite("Pipeline: arrival order, pending verdicts, held messages")
struct PipelineOrderTests {
    /// The report line of a message that went to `shelf`, its data verdict `verdict`.
    static func delivered(_ id: String, line: Int, verdict: String = "continue") -> String {
        #"{"id":"\#(id)","target":null,"status":"delivered","route":"background","data":[{"plugin":"gate","verdict":"\#(verdict)"}],"ui":["shelf"],"error":null,"source":{"kind":"stdin","line":\#(line)}}"#
    }

    @Test("verdicts completed out of order: every line, events and rejections too, comes out in arrival order")
    func outOfOrder() throws {
        let folder = try TestFolder()
        let stages = try GatePlugin.stages(in: folder)
        let complete = try stages.function("gate", "gate_complete", as: GatePlugin.Complete.self)
        let pending = try stages.function("gate", "gate_pending", as: GatePlugin.Count.self)
        let shelfCalls = try stages.function("shelf", "shelf_calls", as: GatePlugin.Count.self)

        stages.take(#"{"message_id":"m1","data":{"pending":"yes"}}"#, line: 1)
        stages.take(#"{"message_id":"m2","data":{}}"#, line: 2)
        stages.take(#"{"message_id":"m3","data":{"pending":"yes"}}"#, line: 3)
        stages.take(#"{"pushhost":"background"}"#, line: 4)
        stages.take(#"{"message_id":"m5",}"#, line: 5)
        #expect(pending() == 2)
        #expect(try stages.reportLines().isEmpty, "m1 is pending: nothing behind it may be reported yet")

        complete(1, Int32(PH_SUPPRESS.rawValue))
        stages.takePosted()
        #expect(try stages.reportLines().isEmpty, "m3 is done, but m1 before it is not")
        #expect(shelfCalls() == 0)

        complete(0, Int32(PH_CONTINUE.rawValue))
        stages.takePosted()
        let lines = try stages.reportLines()
        #expect(lines.count == 5)
        #expect(lines.first == Self.delivered("m1", line: 1))
        #expect(lines.dropFirst().first == Self.delivered("m2", line: 2))
        #expect(lines.dropFirst(2).first == #"{"id":"m3","target":null,"status":"suppressed","route":"none","data":[{"plugin":"gate","verdict":"suppress"}],"ui":[],"error":null,"source":{"kind":"stdin","line":3}}"#)
        #expect(lines.dropFirst(3).first == #"{"event":"background","status":"applied","source":{"kind":"stdin","line":4}}"#)
        #expect(lines.dropFirst(4).first == #"{"id":null,"target":null,"status":"rejected","route":"none","data":[],"ui":[],"error":"byte 19: trailing comma","source":{"kind":"stdin","line":5}}"#)
        #expect(shelfCalls() == 2, "m1 and m2 reached the background plugin; m3 was suppressed")
        #expect(stages.pipeline.isIdle)
        #expect(stages.pipeline.report.rejectedCount == 1)
    }

    @Test("a verdict still pending past --data-timeout counts as failed, and its late complete is ignored")
    func deadline() throws {
        let folder = try TestFolder()
        var options = RunOptions()
        options.dataTimeout = 0
        let stages = try GatePlugin.stages(in: folder, options: options)
        let complete = try stages.function("gate", "gate_complete", as: GatePlugin.Complete.self)

        stages.take(#"{"message_id":"slow","data":{"pending":"yes"}}"#, line: 1)
        stages.take(#"{"message_id":"quick","data":{}}"#, line: 2)
        #expect(try stages.reportLines().isEmpty)

        stages.pipeline.endTurn()
        let expected = [
            #"{"id":"slow","target":null,"status":"failed","route":"none","data":[{"plugin":"gate","verdict":"failed"}],"ui":[],"error":"gate did not complete within --data-timeout 0.0s","source":{"kind":"stdin","line":1}}"#,
            Self.delivered("quick", line: 2),
        ]
        #expect(try stages.reportLines() == expected)
        #expect(stages.pipeline.report.failedCount == 1)

        complete(0, Int32(PH_CONTINUE.rawValue))
        stages.takePosted()
        #expect(try stages.reportLines() == expected, "the late complete changes nothing")
        #expect(stages.pipeline.report.failedCount == 1)
        #expect(stages.pipeline.isIdle)
    }

    @Test("a message an interceptor held joins the stream when released, behind what arrived meanwhile")
    func heldMessage() throws {
        let folder = try TestFolder()
        let stages = try GatePlugin.stages(in: folder)
        let complete = try stages.function("gate", "gate_complete", as: GatePlugin.Complete.self)
        let release = try stages.function("gate", "gate_release", as: GatePlugin.Release.self)
        let held = try stages.function("gate", "gate_held", as: GatePlugin.Count.self)

        stages.take(#"{"message_id":"m1","data":{"hold":"yes"}}"#, line: 1)
        stages.take(#"{"message_id":"m2","data":{}}"#, line: 2)
        #expect(held() == 1)
        #expect(try stages.reportLines() == [Self.delivered("m2", line: 2)], "the records behind a held message go on")

        stages.take(#"{"message_id":"m3","data":{"pending":"yes"}}"#, line: 3)
        stages.take(#"{"message_id":"m4","data":{}}"#, line: 4)
        release(0)
        stages.takePosted()
        #expect(try stages.reportLines().count == 1, "m1 came back behind m3, whose verdict is pending, and m4")
        #expect(!stages.pipeline.isIdle)

        complete(0, Int32(PH_CONTINUE.rawValue))
        stages.takePosted()
        #expect(try stages.reportLines() == [
            Self.delivered("m2", line: 2), Self.delivered("m3", line: 3), Self.delivered("m4", line: 4), Self.delivered("m1", line: 1),
        ])
        #expect(stages.pipeline.isIdle)
    }
}
