/// A request being received or answered on a server connection.
///
/// Thread confinement: loop thread only (owned by its `ServerSession`).
final class ServerStream {
    let streamID: Int32
    var method = ""
    var path = ""
    var authority: String?
    var scheme: String?
    /// Room for a typical request's fields from the start, so appending rarely reallocates.
    var headers: [(name: String, value: String)] = {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(8)
        return fields
    }()
    var neverIndexed: [String] = []
    var body: [UInt8] = []
    var responseBody: [UInt8] = []
    var responseOffset = 0
    var responded = false
    /// Bytes of the header list so far (names, values and 32 a field, RFC 9113 §6.5.2).
    var headerListSize = 0
    /// The header list went over `maxHeaderListSize`: later fields are not kept.
    var headerListTooLarge = false
    var dispatched = false

    init(streamID: Int32) {
        self.streamID = streamID
    }
}
