// Tests for LivelineCrypto go here.
