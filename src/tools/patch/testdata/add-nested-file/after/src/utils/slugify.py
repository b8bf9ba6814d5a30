import re


def slugify(text: str) -> str:
    """Lower-case `text` and join its words with dashes."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)
