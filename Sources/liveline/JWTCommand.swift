import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCrypto

/// `liveline jwt`: prints a fresh APNs provider token, for curl and other tools.
enum JWTCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline jwt", abstract: "Print a fresh APNs provider token (JWT) signed with a .p8 key.",
        usage: "--key AuthKey_<KEYID>.p8 [--key-id ID] --team-id ID",
        options: [
            .init(name: "key", valueName: "file", help: "The AuthKey_<KEYID>.p8 file (EC P-256, unencrypted PKCS#8 PEM)."),
            .init(name: "key-id", valueName: "id", help: "The 10-character key ID; defaults to the <KEYID> in the file name."),
            .init(name: "team-id", valueName: "id", help: "The 10-character developer team ID (the token's iss)."),
        ],
        discussion: """
            The token is valid for one hour. It is printed on stdout and nowhere else; treat it as a password.
            Example:
              curl --http2 -H "authorization: bearer $(liveline jwt --key AuthKey_ABC123DEFG.p8 --team-id DEF123GHIJ)" ...
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let credentials = try APNSOptions.tokenCredentials(arguments)
        let jwt = try JWT.sign(keyID: credentials.keyID, teamID: credentials.teamID, issuedAt: Date(), key: credentials.key)
        Console.out(jwt)
        return 0
    }
}
