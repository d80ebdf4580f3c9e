import CNghttp2
#if canImport(Glibc)
import Glibc
#endif

/// nghttp2 callbacks of server sessions (static, nonisolated, called on the loop thread).
enum ServerCallbacks {
    static func session(_ userData: UnsafeMutableRawPointer?) -> ServerSession {
        Unmanaged<ServerSession>.fromOpaque(userData!).takeUnretainedValue()
    }

    static func stream(_ session: OpaquePointer?, _ streamID: Int32) -> ServerStream? {
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<ServerStream>.fromOpaque(pointer).takeUnretainedValue()
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.headers.cat.rawValue == NGHTTP2_HCAT_REQUEST.rawValue else { return 0 }
        session(userData).beginStream(frame.pointee.hd.stream_id)
        return 0
    }

    static let onHeader: nghttp2_on_header_callback = { session, frame, name, nameLength, value, valueLength, flags, userData in
        guard let frame, let name, let value, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = stream(session, frame.pointee.hd.stream_id) else { return 0 }
        // Decoding goes on over the limit (HPACK state must stay in step); the fields are dropped.
        if stream.headerListTooLarge { return 0 }
        stream.headerListSize += nameLength + valueLength + 32
        if stream.headerListSize > Self.session(userData).maxHeaderListSize {
            stream.headerListTooLarge = true
            return 0
        }
        let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
        if flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0 {
            stream.neverIndexed.append(String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self))
        }
        if nameLength > 1 && name[0] == UInt8(ascii: ":") {
            switch (name[1], nameLength) {
            case (UInt8(ascii: "m"), 7): stream.method = String(decoding: valueBytes, as: UTF8.self)
            case (UInt8(ascii: "p"), 5): stream.path = Self.session(userData).recentValue(slot: 0, valueBytes)
            case (UInt8(ascii: "a"), 10): stream.authority = String(decoding: valueBytes, as: UTF8.self)
            case (UInt8(ascii: "s"), 7): stream.scheme = String(decoding: valueBytes, as: UTF8.self)
            default: break
            }
            return 0
        }
        let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
        if let index = commonNameIndex(nameBytes) {
            stream.headers.append((name: commonNames[index].name, value: Self.session(userData).recentValue(slot: index + 1, valueBytes)))
        } else {
            stream.headers.append((name: String(decoding: nameBytes, as: UTF8.self), value: String(decoding: valueBytes, as: UTF8.self)))
        }
        return 0
    }

    /// Slots `ServerSession.recentValue` needs: `:path`, then one per common name.
    static var recentValueSlots: Int { commonNames.count + 1 }

    /// Request header names seen on most requests, as strings made once (nghttp2 has already
    /// checked names are lower-case tokens, so a byte match is the same string).
    private static let commonNames: [(bytes: [UInt8], name: String)] = [
        "authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id",
        "apns-collapse-id", "content-length", "content-type", "user-agent", "accept", "accept-encoding", "te",
    ].map { (Array($0.utf8), $0) }

    /// The index in `commonNames` of the name `bytes` spell, if any.
    private static func commonNameIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for index in commonNames.indices where commonNames[index].bytes.count == bytes.count {
            if commonNames[index].bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return index }
        }
        return nil
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { session, _, streamID, data, length, userData in
        guard let data, let stream = stream(session, streamID) else { return 0 }
        Self.session(userData).bodyChunk(stream, data, length)
        return 0
    }

    static let onFrame: nghttp2_on_frame_recv_callback = { session, frame, userData in
        guard let frame else { return 0 }
        let type = UInt32(frame.pointee.hd.type)
        guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
              let stream = stream(session, frame.pointee.hd.stream_id) else { return 0 }
        if type == NGHTTP2_HEADERS.rawValue && stream.headerListTooLarge {
            Self.session(userData).headerListTooLarge(stream)
        }
        guard UInt32(frame.pointee.hd.flags) & NGHTTP2_FLAG_END_STREAM.rawValue != 0 else { return 0 }
        Self.session(userData).requestComplete(stream)
        return 0
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
        session(userData).streamClosed(streamID)
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, _ in
        guard let buffer, let flags, let pointer = source?.pointee.ptr else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let stream = Unmanaged<ServerStream>.fromOpaque(pointer).takeUnretainedValue()
        let count = min(stream.responseBody.count - stream.responseOffset, length)
        if count > 0 {
            stream.responseBody.withUnsafeBufferPointer { body in
                buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
            }
            stream.responseOffset += count
        }
        if stream.responseOffset == stream.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}
