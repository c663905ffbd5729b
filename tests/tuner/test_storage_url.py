"""A storage URL as every message shows it: no password, whatever the URL's shape."""
import pytest

from tuner.storage import display_url, mask_secrets

SECRET = "S3cr3t"


@pytest.mark.parametrize("url, shown", [
    (f"postgresql+psycopg://tuner:{SECRET}@127.0.0.1:5432/x", "postgresql+psycopg://tuner:***@127.0.0.1:5432/x"),
    (f"postgresql+psycopg://tuner:{SECRET}@127.0.0.1:notaport/x", "postgresql+psycopg://tuner:***@127.0.0.1:notaport/x"),
    (f"postgresql://tuner@h/x?password={SECRET}", "postgresql://tuner@h/x?password=***"),
    (f"postgresql://h/x?sslmode=require&pwd={SECRET}", "postgresql://h/x?pwd=***&sslmode=require"),   # SQLAlchemy sorts the query
    (f"postgresql://h/x?sslpassword={SECRET}", "postgresql://h/x?sslpassword=***"),
    (f"postgresql://:{SECRET}@h/x", "postgresql://:***@h/x"),
    ("postgresql://u:S3%63r3t@h/x", "postgresql://u:***@h/x"),
    (f"postgresql://h/x?pass%77ord={SECRET}", "postgresql://h/x?password=***"),
    (f"postgresql://u:{SECRET}@x@h:bad/x?password={SECRET};a=b#f", "postgresql://u:***@h:bad/x?password=***;a=b#f"),
    (f"mysql://u:{SECRET}@x@h/db", "mysql://u:***@h/db"),
    ("sqlite:///results/study.db", "sqlite:///results/study.db"),
])
def test_the_password_never_shows(url, shown):
    assert display_url(url) == shown


def test_a_driver_s_message_loses_the_password_too():
    url = f"postgresql://u:{SECRET}@h/x"
    assert mask_secrets(f"password={SECRET} rejected; {SECRET}", url) == "password=*** rejected; ***"
