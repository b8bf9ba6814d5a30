class Reader:
    def open(self):
        self.handle = connect()
        self.handle.timeout = 5
        return self.handle


class Writer:
    def open(self):
        self.handle = connect()
        self.handle.timeout = 30
        return self.handle
