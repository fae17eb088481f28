"""Claims on the index queue: which writer works on which job, so that several writer processes, on several machines,
drain one team library's queue at once (issue 17) and a killed writer's jobs are taken over.

A writer claims a batch in one short queue transaction (``store.db.queue_session``: on PostgreSQL the queue's own
advisory lock, never the database's write lock, and never held while embedding): the oldest jobs that are free —
unclaimed, or claimed longer ago than the lease (their writer died, or lost its connection) — are locked with
``SELECT … FOR UPDATE SKIP LOCKED`` (a job row another transaction is deleting or releasing is skipped, not waited
for), the writer picks whole documents from them (``pick``: the writer's batch), and marks those ``claimed_by`` itself
at the server's ``now()`` (one clock for every machine). A document is worked on by one writer at a time: jobs of a
document another writer holds a live claim on are left alone (a job queued for it meanwhile waits until that writer is
done), so two writers never write one document's vectors at once, where the older chunk list could win.

While it embeds and writes vectors the writer renews its claims (:meth:`JobClaims.kept`: a thread, every third of the
lease) and, just before writing vectors, checks that it still holds them (:meth:`JobClaims.renew`): a writer stopped
past its lease (a suspended laptop) has lost them to another and writes nothing. It deletes the jobs only where it
still holds them, after their vectors are written (upserts under stable ids), so a writer killed at any point leaves
either its claims, taken over once the lease runs out, or a harmless re-write: never a lost or a doubled vector.

The embedded library keeps one writer (``index.locks.WriterLock``): its lease is 0, so any claim it finds is a dead
process's and is taken at once, as the queue was drained before claims existed.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, func, or_, update
from sqlmodel import Session, select

from ..store import tables
from ..store.db import queue_session, read_session

logger = logging.getLogger(__name__)

LEASE_SECONDS = 60.0
"""How long a claim holds without renewal before another writer takes the job over. Renewed every third of it while
the writer works, so only a writer gone for a whole lease (killed, its machine down, cut off) loses its jobs; a batch
embeds in seconds (``IndexWriter.batch_chunks``), and a killed writer's jobs wait at most this long."""
RENEWALS_PER_LEASE = 3
"""How often a lease is renewed while its writer works (a renewal lost to a slow database still leaves two)."""
CANDIDATES = 200
"""Jobs read per claim, oldest first, from which the writer picks its batch (as many as a drain read before)."""

Pick = Callable[[Session, list[tables.JobRow]], list[tables.JobRow]]
"""Chooses the batch among the free jobs (oldest first), in the claim's transaction: whole documents' jobs."""


def new_claimant() -> str:
    """A writer's name in ``index_job.claimed_by``: ``host:pid:token`` (the token tells two writers of one process
    apart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def claimant_process(claimant: str) -> tuple[str, int]:
    """``(host, pid)`` of a :func:`new_claimant` name.

    Raises:
        ValueError: not such a name.
    """
    host, pid, _token = claimant.rsplit(":", 2)
    return host, int(pid)


class JobClaims:
    """One writer's claims on a library's index queue (the module's doc says how they work).

    Args:
        engine: the library database.
        lease_seconds: how long a claim holds unrenewed (:data:`LEASE_SECONDS` on a team library; 0 for the embedded
            library's one writer, which takes over every claim it finds). A positive lease needs PostgreSQL (its
            ``now()`` and ``make_interval``).
        claimant: this writer's name (default: :func:`new_claimant`).
    """

    def __init__(self, engine: Engine, *, lease_seconds: float, claimant: str | None = None) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds
        self.claimant = claimant or new_claimant()

    def claim(self, wanted: Collection[str] | None, pick: Pick) -> list[tables.JobRow]:
        """Claim a batch: the jobs ``pick`` chooses among the oldest :data:`CANDIDATES` free ones.

        Args:
            wanted: only these documents' jobs; None: the whole queue.
            pick: chooses the batch (whole documents) in the claim's transaction.

        Returns:
            The claimed jobs, in queue order; empty when no job is free (none queued, or other writers hold them).
        """
        job = tables.JobRow
        query = select(job).order_by(job.id).limit(CANDIDATES).with_for_update(skip_locked=True)  # type: ignore[arg-type]
        if self.lease_seconds > 0:
            held_elsewhere = select(job.document_id).where(
                job.claimed_by.is_not(None), job.claimed_by != self.claimant, ~_expired(self.lease_seconds))  # type: ignore[union-attr]
            query = query.where(
                or_(job.claimed_by.is_(None), job.claimed_by == self.claimant, _expired(self.lease_seconds)),  # type: ignore[union-attr]
                job.document_id.not_in(held_elsewhere))  # type: ignore[attr-defined]
        if wanted is not None:
            query = query.where(job.document_id.in_(list(wanted)))  # type: ignore[attr-defined]
        with queue_session(self.engine) as session:
            chosen = pick(session, list(session.exec(query).all()))
            if chosen:
                session.exec(update(job).where(job.id.in_([j.id for j in chosen]))  # type: ignore[union-attr]
                             .values(claimed_by=self.claimant, claimed_at=func.now()))
        return chosen

    def renew(self, job_ids: Collection[int]) -> bool:
        """Renew the claims on ``job_ids``; True when this writer still holds every one of them (False: a job was
        taken over, or completed by a writer that took it over, and the batch must not be written)."""
        if self.lease_seconds <= 0:
            return True  # the one writer: nobody takes its jobs
        job = tables.JobRow
        with queue_session(self.engine) as session:
            renewed = session.exec(update(job).where(job.id.in_(list(job_ids)), job.claimed_by == self.claimant)  # type: ignore[union-attr]
                                   .values(claimed_at=func.now()))
        return renewed.rowcount == len(set(job_ids))

    def owned(self):
        """The condition on a job this writer holds (for the writer's completion: delete only what is still ours)."""
        return tables.JobRow.claimed_by == self.claimant

    def release(self, job_ids: Collection[int] | None = None) -> None:
        """Give claims up so another writer may take the jobs at once: those on ``job_ids``, or (None) all of this
        writer's (a drain ending, cancelled or failing)."""
        job = tables.JobRow
        query = update(job).where(self.owned())
        if job_ids is not None:
            query = query.where(job.id.in_(list(job_ids)))  # type: ignore[union-attr]
        with queue_session(self.engine) as session:
            session.exec(query.values(claimed_by=None, claimed_at=None))

    @contextmanager
    def kept(self, job_ids: Collection[int]) -> Iterator[None]:
        """Renew the claims on ``job_ids`` on a thread, every ``lease / RENEWALS_PER_LEASE`` seconds, for the ``with``
        body (nothing to renew for a lease of 0). A failed renewal is logged: :meth:`renew` before the vector write
        says whether the claims are still held."""
        if self.lease_seconds <= 0:
            yield
            return
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.lease_seconds / RENEWALS_PER_LEASE):
                try:
                    self.renew(job_ids)
                except Exception as error:  # the database away for a moment: the next beat, or the check, tells
                    logger.warning("could not renew the claims on %d index jobs: %s", len(job_ids), error)

        thread = threading.Thread(target=beat, name="index-claims", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()


def _expired(lease_seconds: float):
    """The condition on a job whose claim ran out (its writer is gone), on the server's clock (PostgreSQL)."""
    return tables.JobRow.claimed_at < func.now() - func.make_interval(0, 0, 0, 0, 0, 0, lease_seconds)  # type: ignore[operator]


def live_claimants(engine: Engine, lease_seconds: float) -> list[str]:
    """The writers holding live claims on the queue now (:func:`new_claimant` names, oldest claim first): who is
    indexing a team library. PostgreSQL (a lease, the server's clock)."""
    job = tables.JobRow
    with read_session(engine) as session:
        rows = session.exec(select(job.claimed_by, func.min(job.claimed_at)).where(
            job.claimed_by.is_not(None), ~_expired(lease_seconds)).group_by(job.claimed_by)  # type: ignore[union-attr]
            .order_by(func.min(job.claimed_at))).all()
    return [claimant for claimant, _ in rows if claimant]


class SharedWriters:
    """A team library's writer election, in the shape of ``index.locks.WriterLock`` (``Library.writer_lock``): there
    is none. Every process may drain the queue (:class:`JobClaims` share it out), so :meth:`try_acquire` always
    succeeds and nobody holds the queue alone; who is indexing is who holds live claims (:meth:`holder_pid`).

    Args:
        engine: the library's PostgreSQL database.
        lease_seconds: the claims' lease (:data:`LEASE_SECONDS`; tests shorten it).
    """

    def __init__(self, engine: Engine, lease_seconds: float = LEASE_SECONDS) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds

    def try_acquire(self) -> bool:
        """True: every process may write a team library's vectors."""
        return True

    @property
    def held(self) -> bool:
        """False: no process holds a team library's queue alone."""
        return False

    def release(self) -> None:
        """Nothing to give up (claims are released by the drain that made them)."""

    def holder_pid(self) -> int | None:
        """The pid of another process indexing the library now (the oldest live claim's; it may run on another
        machine), or None when no other process holds claims, or only this machine's processes that have ended
        (for messages only)."""
        here = (socket.gethostname(), os.getpid())
        for claimant in live_claimants(self.engine, self.lease_seconds):
            try:
                process = claimant_process(claimant)
            except ValueError:
                continue
            if process == here or (process[0] == here[0] and not _alive(process[1])):
                continue  # a dead process of this machine (killed mid-upload: a tester) indexes nothing; its claims
                # are taken over when their lease ends
            return process[1]
        return None


def _alive(pid: int) -> bool:
    """Whether a process of this machine with ``pid`` exists (signal 0 probes without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True

