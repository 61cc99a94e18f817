"""`hub bench backend`: concurrent chats through the backend against the whole offline hub."""
