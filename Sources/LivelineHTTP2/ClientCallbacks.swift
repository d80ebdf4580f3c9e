import CNghttp2

/// nghttp2 callbacks of the client session (static, nonisolated, called on the loop thread).
enum ClientCallbacks {
    static func session(_ userData: UnsafeMutableRawPointer?) -> ClientSession {
        Unmanaged<ClientSession>.fromOpaque(userData!).takeUnretainedValue()
    }

    static func request(_ session: OpaquePointer?, _ streamID: Int32) -> PendingRequest? {
        guard let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
    }

    static let onHeader: nghttp2_on_header_callback = { session, frame, name, nameLength, value, valueLength, _, _ in
        guard let frame, let name, let value, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let request = request(session, frame.pointee.hd.stream_id) else { return 0 }
        if nameLength == 7 && name[0] == UInt8(ascii: ":") && name[1] == UInt8(ascii: "s") {
            var status = 0
            for index in 0..<valueLength {
                let digit = Int(value[index]) - 48
                guard (0...9).contains(digit) else { return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
                status = status * 10 + digit
            }
            if status >= 100 && status < 200 {
                request.headers.removeAll()
                return 0
            }
            request.status = status
            return 0
        }
        if nameLength > 0 && name[0] == UInt8(ascii: ":") { return 0 }
        if request.headers.isEmpty { request.headers.reserveCapacity(8) }
        request.headers.append((
            name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
            value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
        return 0
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { session, _, streamID, data, length, userData in
        guard let data, let request = request(session, streamID), !request.isFinished else { return 0 }
        if request.body.count + length > Self.session(userData).configuration.maxResponseBodySize {
            Self.session(userData).responseTooLarge(request)
            return 0
        }
        request.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    static let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        session(userData).receivedFrame(frame)
        return 0
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        session(userData).streamClosed(streamID, errorCode: errorCode)
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, _ in
        guard let buffer, let flags, let pointer = source?.pointee.ptr else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let request = Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
        let remaining = request.request.body.count - request.bodyOffset
        let count = min(remaining, length)
        if count > 0 {
            request.request.body.withUnsafeBufferPointer { body in
                buffer.update(from: body.baseAddress! + request.bodyOffset, count: count)
            }
            request.bodyOffset += count
        }
        if request.bodyOffset == request.request.body.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}
