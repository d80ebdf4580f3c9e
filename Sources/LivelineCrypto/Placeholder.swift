// LivelineCrypto: placeholder until the module's first type lands; delete when adding real sources.
