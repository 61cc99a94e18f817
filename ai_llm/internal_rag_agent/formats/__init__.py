"""Format readers: each turns one kind of document into located sections (`structure.Section`)."""
