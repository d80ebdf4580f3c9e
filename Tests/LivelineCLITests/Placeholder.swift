// Tests for LivelineCLI go here.
