// Tests for LivelineUI go here.
