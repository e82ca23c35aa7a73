# Mêlée — the bot in a container. Data (SQLite database, health beat) lives in the /app/var volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    MELEE_HEALTH_FILE=/app/var/health DATABASE_URL=sqlite+aiosqlite:////app/var/melee.db

WORKDIR /app
RUN useradd --create-home --uid 10001 melee

# Dependencies first (cached layer): exactly the pinned versions, each checked against its hash
# (requirements.lock, from pip-compile --generate-hashes); then the project itself, no other deps.
COPY requirements.lock pyproject.toml README.md ./
COPY bot/__init__.py bot/__init__.py
RUN pip install --require-hashes -r requirements.lock && pip install --no-deps .

# The code stays owned by root: the bot cannot rewrite itself.
COPY bot/ bot/
COPY data/ data/
COPY migrations/ migrations/
COPY alembic.ini ./
# Bytecode written at build time: the code is read-only and PYTHONDONTWRITEBYTECODE is set, so
# without it every start would compile the bot's modules again (about 0.6 s before READY).
RUN python -m compileall -q bot migrations
# Read-only for everyone but root (whatever the build context's modes); only /app/var is the bot's.
RUN chmod -R a-w,a+rX /app/bot /app/data /app/migrations /app/alembic.ini \
    && mkdir -p /app/var && chown melee:melee /app/var && chmod 0750 /app/var

USER melee
VOLUME ["/app/var"]

# Fails when the bot has not refreshed its gateway heartbeat for 90 s.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]

# Migrations to head, then the bot.
CMD ["sh", "-c", "python -m bot migrate && exec python -m bot"]
