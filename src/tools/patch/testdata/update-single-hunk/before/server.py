import json
import logging

log = logging.getLogger(__name__)


def load_config(path):
    with open(path) as fh:
        data = json.load(fh)
    log.info("loaded %s", path)
    return data


def save_config(path, data):
    with open(path, "w") as fh:
        json.dump(data, fh)
