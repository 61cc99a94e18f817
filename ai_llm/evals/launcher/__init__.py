"""`hub bench startup`: how long the launcher takes to bring every agent up, and the idle memory."""
