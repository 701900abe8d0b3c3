// INTERIM until the rich-normalization branch lands.
extension Message {
    var isNormalizedForm: Bool { false }
    var recordBytes: UnsafeRawBufferPointer { root.rawBytes }
    func load(normalized document: JSONDocument, source: RecordSource) { fatalError("interim") }
}
