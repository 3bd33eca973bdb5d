"""Reading a conversation as it really is: the message list, a message's detail, find, the
revision bar, and the item model they share."""
