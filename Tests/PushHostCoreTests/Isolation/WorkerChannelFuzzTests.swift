import CPushHost
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import PushHostIsolation
@testable import PushHostPort
@testable import PushHostJSON
@testable import PushHostSystem

/// The host's side of a worker's channel, fed what a hostile worker could
/// write: random bytes, good batches mutated, ring positions that lie.
/// Seeded, so every run sees the same few thousand cases. Whatever the
/// bytes, reading them never traps, and either gives answers that encode
/// back to exactly those bytes, or says what is malformed (with the
/// answers before it, which encode back to the bytes before it).
@Suite struct WorkerChannelFuzzTests {
    /// Answers as a worker gives them.
    static let good: [[WorkerAnswer]] = [
        [],
        [.returned(call: 1, verdict: PH_CONTINUE, problem: nil)],
        [.returned(call: 7, verdict: PH_FAILED, problem: "disk full: ünïcode ✓")],
        [.returned(call: 2, verdict: PH_PENDING, problem: nil), .completed(call: 2, verdict: PH_SUPPRESS)],
        [.returned(call: 3, verdict: PH_CONTINUE, problem: ""), .recycling(mebibytes: 65)],
        [.returned(call: .max, verdict: ph_verdict(rawValue: 42), problem: String(repeating: "x", count: 300)),
         .completed(call: 9, verdict: PH_FAILED), .returned(call: 10, verdict: PH_CONTINUE, problem: nil)],
        [.returned(call: 4, verdict: PH_PENDING, problem: nil), .intercepted(call: 4, ending: .proceeded, reason: nil, edits: [])],
        [.intercepted(call: 5, ending: .suppressed, reason: "seen ✓", edits: [
            ChainEdit(path: "notification.image", json: #""https://img.test/a.png""#), ChainEdit(path: "collapse_key", json: nil),
        ]), .intercepted(call: 6, ending: .broken, reason: "called proceed twice", edits: [ChainEdit(path: "data.k", json: "")])],
    ]

    @Test(arguments: good)
    func goodAnswersReadBackAsTheyWere(_ answers: [WorkerAnswer]) {
        let bytes = Self.encode(answers)
        let read = bytes.withUnsafeBytes { WorkerAnswer.read($0) }
        #expect(read.answers == answers)
        #expect(read.malformed == nil)
    }

    @Test func randomBytesAreReadOrRefused() {
        var random = SeededGenerator(seed: 30)
        var verdicts = Verdicts()
        for _ in 0..<3000 {
            var bytes = (0..<Int.random(in: 0...96, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Half of them start like a frame, so that the reading gets past the header.
            if bytes.count >= 8, Bool.random(using: &random) {
                Self.store(UInt32(bytes.count - 4), at: 0, in: &bytes)
                bytes[4] = [5, 6, 7, WorkerFrame.FrameKind.intercepted.rawValue].randomElement(using: &random)!
                bytes[5] = 0
                bytes[6] = 0
                bytes[7] = 0
            }
            verdicts.check(bytes)
        }
        #expect(verdicts.malformed > 1000)
        #expect(verdicts.read > 10)
    }

    @Test func mutatedBatchesAreReadOrRefused() {
        var random = SeededGenerator(seed: 6)
        var verdicts = Verdicts()
        let batches = Self.good.map(Self.encode).filter { !$0.isEmpty }
        for _ in 0..<4000 {
            var bytes = batches[Int.random(in: 0..<batches.count, using: &random)]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                Self.mutate(&bytes, using: &random)
            }
            verdicts.check(bytes)
        }
        #expect(verdicts.malformed > 1000)
        #expect(verdicts.read > 100)
    }

    /// Its first frame: a ready frame, offering what a plugin can offer, or malformed.
    @Test func readyFramesAreReadOrRefused() throws {
        var random = SeededGenerator(seed: 4)
        var buffer = ByteBuffer(capacity: WorkerFrame.headerSize)
        WorkerFrame.append(.ready, number: WorkerFrame.offersSource, to: &buffer)
        let ready = Array(buffer.bytes)
        #expect(try ready.withUnsafeBytes { try WorkerAnswer.offers(inReady: $0) } == WorkerFrame.offersSource)
        var offered = 0
        for _ in 0..<2000 {
            var bytes = ready
            Self.mutate(&bytes, using: &random)
            bytes = Array((bytes + [UInt8](repeating: 0, count: WorkerFrame.headerSize)).prefix(WorkerFrame.headerSize))
            if let offers = try? bytes.withUnsafeBytes({ try WorkerAnswer.offers(inReady: $0) }) {
                #expect((0...3).contains(offers), "\(bytes)")
                offered += 1
            }
        }
        #expect(offered > 0)
    }

    /// The worker's side reads the host's frames with the same header
    /// check: garbage there ends the worker, never traps it.
    @Test func theFramesOfABatchNeverReadPastIt() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            var bytes = Self.encode(Self.good[Int.random(in: 0..<Self.good.count, using: &random)])
            Self.mutate(&bytes, using: &random)
            var seen = 0
            let used = bytes.withUnsafeBytes { buffer in
                WorkerFrame.calls(in: buffer) { frame in seen += WorkerFrame.headerSize + frame.payload.count }
            }
            if let used {
                #expect(used <= bytes.count && used == seen)
            }
        }
    }

    // MARK: The ring

    @Test func theWritePositionIsCheckedBeforeAnyCopy() {
        var random = SeededGenerator(seed: 11)
        let capacity = UInt64(WorkerRing.smallestCapacity)
        let edges: [(UInt64, UInt64)] = [(0, 0), (0, capacity), (0, capacity + 1), (5, 4), (.max, capacity - 1), (.max - 3, 2), (10, .max)]
        let randomPairs = (0..<3000).map { _ in
            let taken = UInt64.random(in: 0...UInt64.max, using: &random)
            return (taken, Bool.random(using: &random) ? taken &+ UInt64.random(in: 0...2 * capacity, using: &random) : UInt64.random(in: 0...UInt64.max, using: &random))
        }
        for (taken, written) in edges + randomPairs {
            let ahead = written &- taken
            if let count = try? WorkerRing.span(from: taken, to: written, capacity: WorkerRing.smallestCapacity) {
                #expect(UInt64(count) == ahead && ahead <= capacity)
            } else {
                #expect(ahead > capacity)
            }
        }
    }

    /// The issue's crash: a worker whose write position is garbage.
    @Test func aGarbageWritePositionIsMalformed() throws {
        let ring = try #require(WorkerRing(largestFrame: 0))
        Self.poke(0x9B8F_0DD3_7A11_4C2B, at: 0, of: ring)
        let error = #expect(throws: MalformedAnswer.self) { try ring.take() }
        #expect(error?.description.hasPrefix("its ring's write position is ") == true, "\(String(describing: error))")
    }

    /// The shared read position is the worker's to see, not the host's to trust.
    @Test func theHostKeepsItsOwnReadPosition() throws {
        let ring = try #require(WorkerRing(largestFrame: 0))
        let worker = try #require(WorkerRing(fd: dup(ring.fd)))
        let first = Self.encode(Self.good[2])
        first.withUnsafeBytes { worker.put($0) {} }
        #expect(try ring.take() == first)
        Self.poke(0xDEAD_BEEF, at: 64, of: ring)
        #expect(try ring.take() == nil)
    }

    /// Its size is sealed: no worker shrinks it under the host's mapping.
    @Test func theRingCannotBeResized() throws {
        let ring = try #require(WorkerRing(largestFrame: 0))
        #expect(ftruncate(ring.fd, 0) != 0)
        #expect(ftruncate(ring.fd, off_t(8 << 20)) != 0)
        #expect(try ring.take() == nil)
    }

    /// The host writes its calls into the worker's ring without waiting:
    /// whole frames that fit, the rest kept for later; a worker's plugin that
    /// scribbles on the call ring's read position gets its ring read as
    /// full, or refused, and never has the host write past what it read.
    @Test func aScribbledCallRingNeverHasTheHostWritePastWhatWasRead() throws {
        var random = SeededGenerator(seed: 23)
        let ring = try #require(WorkerRing(largestFrame: 0))
        let worker = try #require(WorkerRing(fd: dup(ring.fd)))
        var frame = ByteBuffer(capacity: 256)
        [UInt8](repeating: 7, count: 100).withUnsafeBytes { payload in WorkerFrame.append(.call, handler: 2, call: 1, to: &frame) { $0.write(payload) } }
        var batch = ByteBuffer(capacity: 1 << 16)
        for _ in 0..<500 { batch.write(frame.bytes) }
        var sent = 0
        var refused = 0
        for round in 0..<400 {
            if round % 3 == 2 {
                Self.poke(UInt64.random(in: 0...UInt64.max, using: &random), at: ring.callsOffset + 64, of: ring)
            }
            do {
                let taken = try ring.putCalls(batch.bytes)
                #expect(taken % frame.count == 0 && taken <= batch.count)
                sent += taken
            } catch {
                refused += 1
                #expect(error.description.hasPrefix("its call ring's read position "), "\(error)")
            }
            // What the worker takes is whole frames, as the host wrote them, unless its read position was scribbled on.
            _ = worker.takeCalls { bytes in
                guard round % 3 != 2 else { return }
                #expect(bytes.count % frame.count == 0)
                #expect(bytes.prefix(frame.count).elementsEqual(frame.bytes))
            }
        }
        #expect(sent > 0 && refused > 0)
    }

    /// Calls of every size go round the call ring many times, in batches
    /// that wait for room (a call written in place finds its place the same
    /// way): the worker reads each one whole and in order, in place, though
    /// none may run past the ring's end (the host skips its tail).
    @Test func callsGoRoundTheRingWholeAndInOrder() throws {
        var random = SeededGenerator(seed: 31)
        let ring = try #require(WorkerRing(largestFrame: 0))
        let worker = try #require(WorkerRing(fd: dup(ring.fd)))
        var next: UInt64 = 1
        var expected: UInt64 = 1
        var bytesSent = 0
        while bytesSent < 6 * ring.callsCapacity {
            var batch = ByteBuffer(capacity: 1 << 16)
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: next), count: Int.random(in: 0...40_000, using: &random))
                payload.withUnsafeBytes { bytes in
                    WorkerFrame.append(.call, handler: 2, call: next, number: Int32(bytes.count), to: &batch, padded: true) { buffer in
                        buffer.reserve(bytes.count)
                        buffer.write(bytes)
                    }
                }
                next += 1
            }
            var left = batch.bytes
            while !left.isEmpty {
                let taken = try ring.putCalls(left)
                bytesSent += taken
                left = UnsafeRawBufferPointer(rebasing: left[taken...])
                _ = worker.takeCalls { part in
                    let walked = WorkerFrame.calls(in: part) { frame in
                        #expect(frame.call == expected)
                        let payload = frame.payload.prefix(Int(frame.number))
                        #expect(payload.count == Int(frame.number) && payload.allSatisfy { $0 == UInt8(truncatingIfNeeded: frame.call) })
                        #expect(frame.payload.dropFirst(Int(frame.number)).allSatisfy { $0 == 0 } && frame.payload.count - Int(frame.number) < 8)
                        expected += 1
                    }
                    #expect(walked != nil)
                }
            }
        }
        #expect(expected == next)
    }

    /// A worker that writes good batches while its plugin scribbles on the
    /// ring's positions and frames: each take is a batch the ring can hold,
    /// read or refused; a refused ring is not read again (a new worker gets
    /// a new one).
    @Test func aScribbledRingIsReadOrRefused() throws {
        var random = SeededGenerator(seed: 17)
        var verdicts = Verdicts()
        var refused = 0
        var ring = try #require(WorkerRing(largestFrame: 0))
        var worker = try #require(WorkerRing(fd: dup(ring.fd)))
        for _ in 0..<1500 {
            let batch = Self.encode(Self.good[Int.random(in: 1..<Self.good.count, using: &random)])
            batch.withUnsafeBytes { worker.put($0) {} }
            var scribbled = Bool.random(using: &random)
            if scribbled {
                let offset = [0, 0, 64, 4096, 4096 + Int.random(in: 0...WorkerRing.smallestCapacity - 8, using: &random)][Int.random(in: 0..<5, using: &random)]
                Self.poke(UInt64.random(in: 0...UInt64.max, using: &random), at: offset, of: ring)
            }
            do {
                let bytes = try ring.take() ?? []
                #expect(bytes.count <= WorkerRing.smallestCapacity)
                verdicts.check(bytes)
                scribbled = scribbled || bytes != batch
            } catch {
                refused += 1
                #expect(error.description.hasPrefix("its ring's write position "))
                scribbled = true
            }
            if scribbled {
                ring = try #require(WorkerRing(largestFrame: 0))
                worker = try #require(WorkerRing(fd: dup(ring.fd)))
            }
        }
        #expect(refused > 100)
        #expect(verdicts.read > 500)
    }

    // MARK: Helpers

    /// What the cases came to.
    struct Verdicts {
        var read = 0
        var malformed = 0

        /// Reads `bytes`: the answers encode back to the bytes they came from.
        mutating func check(_ bytes: [UInt8]) {
            let (answers, problem) = bytes.withUnsafeBytes { WorkerAnswer.read($0) }
            let encoded = WorkerChannelFuzzTests.encode(answers)
            if let problem {
                malformed += 1
                #expect(!problem.description.isEmpty)
                #expect(encoded.count < bytes.count && Array(bytes.prefix(encoded.count)) == encoded, "\(bytes)")
            } else {
                read += 1
                #expect(encoded == bytes, "\(bytes)")
            }
        }
    }

    /// The frames a worker writes for `answers`.
    static func encode(_ answers: [WorkerAnswer]) -> [UInt8] {
        var out = ByteBuffer(capacity: 256)
        for answer in answers {
            switch answer {
            case .returned(let call, let verdict, let problem):
                WorkerFrame.append(.returned, call: call, number: Int32(bitPattern: verdict.rawValue), to: &out) { buffer in
                    guard var problem else { return }
                    problem.withUTF8 { WorkerFrame.appendField(UnsafeRawBufferPointer($0), to: &buffer) }
                }
            case .completed(let call, let verdict):
                WorkerFrame.append(.completed, call: call, number: Int32(bitPattern: verdict.rawValue), to: &out)
            case .recycling(let mebibytes):
                WorkerFrame.append(.recycling, number: mebibytes, to: &out)
            case .intercepted(let call, let ending, let reason, let edits):
                WorkerFrame.append(.intercepted, call: call, number: ending.rawValue, to: &out) { buffer in
                    WorkerFrame.appendField(reason, to: &buffer)
                    for edit in edits {
                        WorkerFrame.appendField(edit.path, to: &buffer)
                        WorkerFrame.appendField(edit.json, to: &buffer)
                    }
                }
            }
        }
        return Array(out.bytes)
    }

    /// One change a hostile worker could make: a byte flipped, a length
    /// made extreme, the batch cut, grown or a part of it repeated.
    static func mutate(_ bytes: inout [UInt8], using random: inout SeededGenerator) {
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
        case 1 where bytes.count >= 4:
            let extremes: [UInt32] = [0, 1, 15, 16, 17, 20, 0x7FFF_FFFF, 0xFFFF_FFF0, 0xFFFF_FFFF, UInt32(bytes.count), UInt32(bytes.count - 4)]
            store(extremes[Int.random(in: 0..<extremes.count, using: &random)], at: Int.random(in: 0...bytes.count - 4, using: &random), in: &bytes)
        case 2:
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
        case 3:
            bytes += (0..<Int.random(in: 1...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        default:
            guard !bytes.isEmpty else { return }
            let start = Int.random(in: 0..<bytes.count, using: &random)
            bytes += bytes[start..<Int.random(in: start...bytes.count, using: &random)]
        }
    }

    static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
    }

    /// Writes `value` into the ring's memory file at `offset`, as a plugin can.
    static func poke(_ value: UInt64, at offset: Int, of ring: WorkerRing) {
        var value = value
        #expect(pwrite(ring.fd, &value, 8, off_t(offset)) == 8)
    }
}

/// SplitMix64: a seeded generator, so that the fuzzing is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension WorkerAnswer {
    /// Every answer in `batch`, and what was wrong with the first malformed one.
    static func read(_ batch: UnsafeRawBufferPointer) -> (answers: [WorkerAnswer], malformed: MalformedAnswer?) {
        var answers: [WorkerAnswer] = []
        let malformed = read(batch) { answer in
            answers.append(answer)
            return true
        }
        return (answers, malformed)
    }
}

extension WorkerRing {
    /// A copy of what the worker wrote since the last take, or nil.
    func take() throws(MalformedAnswer) -> [UInt8]? {
        var bytes: [UInt8]?
        _ = try take { bytes = Array($0) }
        return bytes
    }
}
