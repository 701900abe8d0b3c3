/// What a mistyped word was most likely meant to be.
package enum Spelling {
    /// The name of `names` closest to `word`: one that `word` starts, or
    /// else one at most two edits (insertions, deletions, substitutions,
    /// swaps of neighbours) away; nil when none is that close.
    package static func suggestion(for word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        if let started = names.first(where: { $0.hasPrefix(String(typed)) }) { return started }
        let scored = names.map { (name: $0, edits: edits(typed, Array($0))) }
        guard let best = scored.min(by: { $0.edits < $1.edits }), best.edits <= 2 else { return nil }
        return best.name
    }

    /// The optimal string alignment distance between `a` and `b`.
    static func edits(_ a: [Character], _ b: [Character]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
