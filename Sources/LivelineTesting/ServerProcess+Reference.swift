import Foundation

extension ServerProcess {
    /// Path of Debian's nghttpd (package nghttp2-server).
    public static let nghttpdPath = "/usr/sbin/nghttpd"
    /// Path of Debian's nginx (package nginx-light).
    public static let nginxPath = "/usr/sbin/nginx"

    /// Starts nghttpd over TLS on a free loopback port with `pki`'s server certificate.
    ///
    /// nghttpd serves files from `documentRoot` (a new empty temp directory when nil) for any
    /// method, so a POST to a missing path gets 404 and to an existing file gets 200 and its bytes.
    /// - Parameters:
    ///   - pki: supplies the server certificate and key.
    ///   - maxConcurrentStreams: SETTINGS_MAX_CONCURRENT_STREAMS it announces.
    ///   - documentRoot: directory served.
    ///   - files: files to create in the document root, path (without leading `/`) → contents.
    ///   - extraArguments: more nghttpd options (e.g. `--echo-upload`, `--verify-client`).
    /// - Throws: `TestingError` when it does not start.
    public static func nghttpd(
        pki: TestPKI,
        maxConcurrentStreams: Int = 100,
        documentRoot: URL? = nil,
        files: [String: String] = [:],
        extraArguments: [String] = []
    ) throws -> ServerProcess {
        let port = try freePort()
        var cleanup: [URL] = []
        let root: URL
        if let documentRoot {
            root = documentRoot
        } else {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-nghttpd-\(UUID().uuidString.prefix(8))")
            cleanup.append(root)
        }
        try createFiles(files, in: root)
        return try start(
            executable: nghttpdPath,
            arguments: ["-a", "127.0.0.1", "-d", root.path, "-m", String(maxConcurrentStreams)] + extraArguments
                + [String(port), pki.serverKey.path, pki.serverCertificate.path],
            port: port, cleanup: cleanup)
    }

    /// Starts nginx (single process, `daemon off`) on a free loopback port with a config written
    /// to a temp directory: `location /` answers `return 200` with `body`, so any request works.
    /// - Parameters:
    ///   - pki: supplies the server certificate and key.
    ///   - http2: `false` serves HTTP/1.1 only over TLS (ALPN without `h2`), for negative tests.
    ///   - maxConcurrentStreams: `http2_max_concurrent_streams`.
    ///   - status: the status `location /` returns.
    ///   - body: the body it returns (empty by default).
    ///   - extraServerDirectives: more directives inside the `server` block.
    /// - Throws: `TestingError` when it does not start.
    public static func nginx(
        pki: TestPKI,
        http2: Bool = true,
        maxConcurrentStreams: Int = 128,
        status: Int = 200,
        body: String = "",
        extraServerDirectives: String = ""
    ) throws -> ServerProcess {
        let port = try freePort()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-nginx-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw TestingError("cannot create directory \(dir.path): \(error)")
        }
        let escapedBody = body.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let config = """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir.path)/nginx.pid;
        error_log \(dir.path)/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(dir.path)/body;
            proxy_temp_path \(dir.path)/proxy;
            fastcgi_temp_path \(dir.path)/fastcgi;
            uwsgi_temp_path \(dir.path)/uwsgi;
            scgi_temp_path \(dir.path)/scgi;
            keepalive_requests 100000000;
            keepalive_timeout 600s;
            server {
                listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");
                ssl_certificate \(pki.serverCertificate.path);
                ssl_certificate_key \(pki.serverKey.path);
                ssl_protocols TLSv1.2 TLSv1.3;
                http2_max_concurrent_streams \(maxConcurrentStreams);
                client_max_body_size 1m;
                \(extraServerDirectives)
                location / { return \(status) "\(escapedBody)"; }
            }
        }
        """
        let configFile = dir.appendingPathComponent("nginx.conf")
        do {
            try Data(config.utf8).write(to: configFile)
        } catch {
            throw TestingError("cannot write \(configFile.path): \(error)")
        }
        return try start(
            executable: nginxPath,
            arguments: ["-p", dir.path, "-e", "\(dir.path)/error.log", "-c", configFile.path],
            port: port, cleanup: [dir])
    }

    /// Starts `openssl s_server` with `pki`'s server certificate, selecting ALPN `alpn` (e.g.
    /// `h2` for a TLS server that then never speaks HTTP/2, `http/1.1` for one without HTTP/2).
    /// - Throws: `TestingError` when it does not start.
    public static func opensslServer(pki: TestPKI, alpn: String) throws -> ServerProcess {
        let port = try freePort()
        return try start(
            executable: TestPKI.opensslPath,
            arguments: ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", pki.serverCertificate.path,
                        "-key", pki.serverKey.path, "-alpn", alpn, "-quiet"],
            port: port)
    }

    private static func createFiles(_ files: [String: String], in root: URL) throws {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (path, contents) in files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: url)
            }
        } catch {
            throw TestingError("cannot create files in \(root.path): \(error)")
        }
    }
}
