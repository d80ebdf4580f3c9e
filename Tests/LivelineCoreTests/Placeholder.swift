// Tests for LivelineCore go here.
