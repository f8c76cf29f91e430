"""The one Settings object. Every setting has a description; the README table is checked
against this class by the tests.

Values come from arguments, then ``SCHEMA_SEARCH_*`` environment variables, then the
defaults below. Nothing deeper in the code reads the environment: settings are passed
down.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("schema-search", appauthor=False))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCHEMA_SEARCH_", extra="ignore")

    home: Path = Field(
        default_factory=_default_home,
        description="Data directory holding one folder per catalog (its index generations).",
    )
    default_k: int = Field(10, ge=1, description="Candidates returned when a request does not say k.")
    max_k: int = Field(100, ge=1, description="Largest k a request may ask for.")
    max_question_chars: int = Field(
        2000, ge=1, description="Longest question accepted; longer ones are refused (HTTP 413)."
    )
    rrf_k: float = Field(60.0, gt=0, description="Reciprocal Rank Fusion constant k (larger flattens ranks).")
    weight_names: float = Field(1.0, ge=0, description="Fusion weight of the names channel (identifiers).")
    weight_text: float = Field(1.0, ge=0, description="Fusion weight of the text channel (comments, descriptions).")
    weight_body: float = Field(1.0, ge=0, description="Fusion weight of the body channel (everything, one field).")
    scale_by_coverage: bool = Field(
        True,
        description=(
            "Scale each channel's weight by the share of tables it has text for, so a sparse "
            "channel (comments on a few tables) cannot crowd out the ones that match."
        ),
    )
    channel_depth: int = Field(
        100, ge=1, description="How many matches each channel contributes to fusion."
    )
    allow_url_sources: bool = Field(
        False,
        description=(
            "Let HTTP callers index from a database URL (with the admin key). Off by default: "
            "a URL makes the server connect anywhere and open local files."
        ),
    )
    admin_key: SecretStr | None = Field(
        None,
        description=(
            "When set, every HTTP write (indexing) needs it in the X-Admin-Key header; "
            "indexing from a URL always does."
        ),
    )
    max_upload_bytes: int = Field(
        20_000_000, ge=1, description="Largest DDL upload accepted over HTTP, in bytes (HTTP 413 above)."
    )
    host: str = Field("127.0.0.1", description="Address `schema-search serve` listens on.")
    port: int = Field(8000, ge=1, le=65535, description="Port `schema-search serve` listens on.")

    def weights(self) -> dict[str, float]:
        """Fusion weight per channel."""
        return {"names": self.weight_names, "text": self.weight_text, "body": self.weight_body}
