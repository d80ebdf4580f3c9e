// Tests for LivelineHTTP2 go here.
