"""HTTP: the Host/Origin guard every server sits behind and the shared client pools."""
