"""The confined sandbox: hostile R is contained, limited and killed; the host is unchanged (issue 'Hostile code')."""

import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from causalverify_inspect.sandbox import WORKDIR, ConfinedLimits, ConfinedSandboxEnvironment, bwrap_argv, choice

REPO = Path(__file__).resolve().parents[2]
LIMITS = ConfinedLimits(
    cpu_seconds=10, memory_bytes=1024**3, processes=32, file_bytes=8 * 1024**2, output_bytes=64 * 1024
)


@pytest.fixture
def box():
    env = ConfinedSandboxEnvironment(LIMITS)
    yield env
    env.close()


async def run_r(box, code: str, timeout: int = 20):
    await box.write_file("t.R", code)
    return await box.exec(["Rscript", "--vanilla", "t.R"], timeout=timeout)


def test_argv_confines_network_filesystem_and_limits(tmp_path):
    argv = bwrap_argv(tmp_path, WORKDIR, LIMITS, {})
    assert "--unshare-all" in argv and "--die-with-parent" in argv
    assert ["--bind", str(tmp_path), str(WORKDIR)] == argv[argv.index("--bind") : argv.index("--bind") + 3]
    assert "--ro-bind" in argv and "/home" not in argv and str(REPO) not in argv
    assert f"--as={1024**3}" in argv and "--nproc=32" in argv and "--cpu=10" in argv


def fake_installed_package(library: Path, name: str) -> Path:
    """A folder shaped as an installed R package (what :mod:`.libraries` looks for), not a loadable one."""
    (library / name / "Meta").mkdir(parents=True)
    (library / name / "DESCRIPTION").write_text(f"Package: {name}\n")
    (library / name / "Meta" / "package.rds").write_bytes(b"")
    return library / name


def test_argv_shows_only_the_installed_packages_of_the_r_libs_libraries(tmp_path, monkeypatch):
    library = tmp_path / "rlib"
    package = fake_installed_package(library, "fixest")
    (library / "notes").mkdir()
    (library / "secret.txt").write_text("token")
    work_dirs = tempfile.gettempdir()  # holds every sample's work dir, which a program could shape as a package
    monkeypatch.setenv("R_LIBS", f"{library}:{tmp_path / 'missing'}:/usr/lib/R/site-library:{library}:{work_dirs}:/")
    argv = bwrap_argv(tmp_path, WORKDIR, LIMITS, {})
    binds = [argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")]
    assert ["--ro-bind", str(package), str(package)] == argv[
        argv.index(str(package)) - 1 : argv.index(str(package)) + 2
    ]
    assert (
        str(library) not in binds and str(library / "notes") not in binds and str(library / "secret.txt") not in binds
    )
    assert not any(b.startswith("/usr/lib/R/site-library") for b in binds)  # visible with /usr already
    # existing, each once, in order; not the work dirs' folder nor one above it
    assert argv[argv.index("R_LIBS") + 1] == f"{library}:/usr/lib/R/site-library"

    monkeypatch.delenv("R_LIBS")
    assert "R_LIBS" not in bwrap_argv(tmp_path, WORKDIR, LIMITS, {})


@pytest.fixture(scope="module")
def r_library(tmp_path_factory, readable_dir_factory) -> Path:
    """A library holding one tiny real package, ``cvtinylib`` 0.1 (``R CMD INSTALL``), beside a file that is not a
    package."""
    source, library = tmp_path_factory.mktemp("src") / "cvtinylib", readable_dir_factory()
    (source / "R").mkdir(parents=True)
    (source / "DESCRIPTION").write_text(
        "Package: cvtinylib\nVersion: 0.1\nTitle: Test\nDescription: Test.\nLicense: MIT\nAuthor: t\nMaintainer: t <t@t>\n"
    )
    (source / "NAMESPACE").write_text("export(cvtiny_answer)\n")
    (source / "R" / "answer.R").write_text("cvtiny_answer <- function() 42\n")
    subprocess.run(
        ["R", "CMD", "INSTALL", "--no-docs", "-l", str(library), str(source)], check=True, capture_output=True
    )
    (library / "secret.txt").write_text("token")
    return library


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_a_package_of_an_r_libs_library_loads_inside_and_is_read_only(box, r_library, monkeypatch):
    code = (
        f'library(cvtinylib); cat(cvtiny_answer(), file.exists("{r_library}/secret.txt"), '
        f'file.create("{r_library}/cvtinylib/pwned"), "\\n")'
    )
    monkeypatch.delenv("R_LIBS", raising=False)
    without = await run_r(box, code)
    assert not without.success and "cvtinylib" in without.stderr
    monkeypatch.setenv("R_LIBS", str(r_library))
    result = await run_r(box, code)
    assert result.success and result.stdout.split() == ["42", "FALSE", "FALSE"]
    assert not (r_library / "cvtinylib" / "pwned").exists()


@pytest.mark.needs_r
def test_the_host_r_query_sees_the_r_libs_libraries_as_the_sandbox_does(r_library, monkeypatch):
    monkeypatch.setenv("R_LIBS", str(r_library))
    assert choice.host_r_versions()["cvtinylib"] == "0.1"
    monkeypatch.setenv("R_LIBS_USER", str(r_library))  # the sandbox has no user library: neither has the query
    monkeypatch.delenv("R_LIBS")
    assert "cvtinylib" not in choice.host_r_versions()


async def test_paths_outside_the_work_dir_are_refused(box):
    for bad in ("/etc/passwd", "../escape.txt", "a/../../b"):
        with pytest.raises(PermissionError):
            await box.write_file(bad, "x")
    await box.write_file("/workdir/sub/ok.txt", "fine")
    assert await box.read_file("sub/ok.txt") == "fine"


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_plain_r_runs_and_reads_its_file(box):
    await box.write_file("experiments/exp_b/data/s01_data.csv", "a,b\n1,2\n3,4\n")
    code = 'd <- read.csv("experiments/exp_b/data/s01_data.csv"); cat("Estimate:", sum(d$b), "\\n")'
    result = await run_r(box, code)
    assert result.success and result.stdout.strip() == "Estimate: 6"


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_network_is_blocked_even_to_host_loopback(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept(), daemon=True).start()
    try:
        result = await run_r(box, f'con <- socketConnection("127.0.0.1", {port}, timeout = 2); cat("connected\\n")')
        outside = await run_r(box, 'con <- socketConnection("192.0.2.1", 80, timeout = 2); cat("connected\\n")')
    finally:
        server.close()
    assert not result.success and "connected" not in result.stdout
    assert not outside.success and "connected" not in outside.stdout


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_writes_outside_the_work_dir_fail_and_host_is_unchanged(box, tmp_path):
    target = tmp_path / "pwned.txt"
    code = (
        f'for (p in c("/usr/pwned.txt", "{target}", "{REPO}/pwned.txt")) '
        'try(writeLines("x", p), silent = TRUE); writeLines("x", "/tmp/private.txt"); cat("done\\n")'
    )
    result = await run_r(box, code)
    assert result.success and "done" in result.stdout
    assert not target.exists() and not (REPO / "pwned.txt").exists() and not Path("/usr/pwned.txt").exists()
    assert not Path("/tmp/private.txt").exists()


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_host_home_and_repository_are_invisible(box):
    code = (
        f'cat(file.exists("{REPO}/pyproject.toml"), file.exists("{Path.home()}"), '
        'length(list.files("/root")), file.exists("/etc/passwd"), "\\n")'
    )
    result = await run_r(box, code)
    assert result.success
    assert result.stdout.split() == ["FALSE", "FALSE", "0", "FALSE"]


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_fork_bomb_is_contained(box):
    # contained means it ends on its own: a hang would raise the sandbox's timeout (generous: a loaded machine)
    result = await run_r(box, 'system("b(){ b | b & }; b", wait = TRUE); Sys.sleep(1); cat("after\\n")', 120)
    assert "fork" in result.stderr.lower() or "resource" in result.stderr.lower()


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_memory_bomb_fails(box):
    result = await run_r(box, "x <- numeric(4e8); cat(length(x))")  # 3.2 GB against a 1 GiB limit
    assert not result.success and "cannot allocate" in result.stderr


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_infinite_loop_and_long_sleep_are_killed_at_the_wall_clock_limit(box):
    for code in ("while (TRUE) {}", "Sys.sleep(600)"):
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await run_r(box, code, timeout=3)
        assert time.monotonic() - started < 60  # killed near its 3 s limit, not after the 600 s sleep (loose: load)


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_hundred_megabytes_of_output_are_truncated(box):
    result = await run_r(box, 'for (i in 1:100) cat(strrep("x", 1e6))', 120)  # a hang raises the timeout
    assert result.success
    assert len(result.stdout) < 70 * 1024 and "stdout truncated" in result.stdout and "100000000" in result.stdout
    assert result.stdout.rstrip().endswith("x")  # the last half of the cap is the stream's end


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_file_size_limit(box):
    result = await run_r(box, 'writeBin(raw(2e7), "big.bin")')  # 20 MB against an 8 MiB limit
    # R runs as the namespace's pid 1, which the kernel spares SIGXFSZ: the write fails instead
    assert not result.success or "problem writing" in result.stderr
    assert (box.workdir / "big.bin").stat().st_size <= 8 * 1024**2


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_background_process_dies_with_the_command(box, process_cmdlines):
    result = await run_r(box, 'system("sleep 97.25 &"); cat("left\\n")')
    assert result.success
    time.sleep(0.3)
    leftovers = [c for c in process_cmdlines() if c == "sleep\x0097.25\x00"]
    assert leftovers == []


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_non_utf8_output_is_decoded_with_replacement(box):
    result = await run_r(box, "cat(rawToChar(as.raw(c(0x45, 0xff, 0xfe, 0x0a))))")
    assert result.success and result.stdout.startswith("E\ufffd")


def test_docker_image_and_compose_match_the_package_list_and_limits():
    from causalverify_inspect.sandbox import DOCKER_COMPOSE, DOCKER_R_PACKAGES

    dockerfile = (DOCKER_COMPOSE.parent / "Dockerfile").read_text()
    compose = DOCKER_COMPOSE.read_text()
    assert all(f" {pkg} " in dockerfile or f" {pkg}\n" in dockerfile for pkg in DOCKER_R_PACKAGES)
    for setting in ("network_mode: none", "mem_limit:", "cpus:", "pids_limit:", "user: ruser"):
        assert setting in compose
    assert "USER ruser" in dockerfile
