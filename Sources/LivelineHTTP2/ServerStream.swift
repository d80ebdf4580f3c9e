/// A request being received or answered on a server connection.
///
/// Thread confinement: loop thread only (owned by its `ServerSession`).
final class ServerStream {
    let streamID: Int32
    var method = ""
    var path = ""
    var authority: String?
    var scheme: String?
    var headers: [(name: String, value: String)] = []
    var neverIndexed: [String] = []
    var body: [UInt8] = []
    var responseBody: [UInt8] = []
    var responseOffset = 0
    var responded = false
    var dispatched = false

    init(streamID: Int32) {
        self.streamID = streamID
    }
}
