class Cache:
    def get(self, key):
        if key not in self.items:
            return None
        return self.items[key]

    def pop(self, key):
        if key not in self.items:
            return None
        return self.items.pop(key)


class Index:
    def get(self, key):
        if key not in self.items:
            return None
        return self.items[key]

    def pop(self, key):
        if key not in self.items:
            return None
        return self.items.pop(key)
