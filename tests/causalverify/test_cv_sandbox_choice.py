"""exp_b's sandbox choice (issue 16) with the Docker CLI's answers scripted, and the compose files' limits and image
package lists checked against each other and against the confined sandbox. No Docker needed."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from causal_suite.errors import SuiteInputError
from causalverify_inspect.sandbox import choice, docker
from causalverify_inspect.sandbox.docker import (
    DEBIAN_R_PACKAGES,
    DOCKER_R_PACKAGES,
    IMAGES,
    R_PACKAGES_FULL,
    R_PACKAGES_UPSTREAM,
    SANDBOX_DIR,
)
from causalverify_inspect.sandbox.limits import ConfinedLimits
from causalverify_inspect.sandbox.versions import outside_pins, pin_text, version_key

COMPOSE_FILES = ["compose.yaml", "compose.upstream.yaml", "compose.debian.yaml"]
DEBIAN = IMAGES[("docker-debian", "debian")]
CRAN = IMAGES[("docker", "full")]


def service(name: str) -> dict:
    return yaml.safe_load((SANDBOX_DIR / name).read_text())["services"]["default"]


def test_compose_files_share_one_security_block_matching_the_confined_limits():
    blocks = [{k: v for k, v in service(n).items() if k not in ("build", "image")} for n in COMPOSE_FILES]
    assert blocks[0] == blocks[1] == blocks[2]
    s, limits = blocks[0], ConfinedLimits()
    assert s["network_mode"] == "none" and s["init"] is True and s["read_only"] is True and s["user"] == "ruser"
    assert s["cap_drop"] == ["ALL"] and s["security_opt"] == ["no-new-privileges:true"]
    assert s["mem_limit"] == s["memswap_limit"] == "2g" and limits.memory_bytes == 2 * 1024**3
    assert s["pids_limit"] == limits.processes == 64
    assert s["shm_size"] == "64m" and limits.shm_bytes == 64 * 1024**2
    assert s["ulimits"] == {"fsize": limits.file_bytes, "nofile": limits.open_files, "core": 0}
    tmpfs = dict(t.split(":", 1) for t in s["tmpfs"])
    assert tmpfs["/tmp"] == f"size={limits.tmp_bytes // 1024**2}m"
    work = dict(o.split("=") for o in tmpfs[s["working_dir"]].split(","))
    assert work["size"] == f"{limits.workdir_bytes // 1024**2}m" and int(work["nr_inodes"]) == limits.workdir_files
    assert work["uid"] == work["gid"] == "10001"
    images = {n: service(n)["image"] for n in COMPOSE_FILES}
    assert images == {spec.compose.name: spec.image for spec in IMAGES.values()}
    assert service("compose.upstream.yaml")["build"]["args"] == {"PROFILE": "upstream"}


def _r_vector(text: str, marker: str) -> list[str]:
    """The names in the first ``c("a", "b", ...)`` after ``marker``."""
    after = text[text.index(marker) :]
    return re.findall(r'"([\w.]+)"', after[after.index("c(") : after.index(")")])


def test_image_package_lists_match_the_dockerfiles():
    cran = (SANDBOX_DIR / "Dockerfile").read_text()
    debian = (SANDBOX_DIR / "Dockerfile.debian").read_text()
    assert _r_vector(cran, "Rscript -e 'pk <-") == list(R_PACKAGES_UPSTREAM)
    assert set(R_PACKAGES_FULL) - set(R_PACKAGES_UPSTREAM) == {"stargazer", "rdd"}
    assert DOCKER_R_PACKAGES == R_PACKAGES_FULL
    assert _r_vector(debian, "Rscript -e 'pk <-") == list(DEBIAN_R_PACKAGES)
    installed = re.findall(r"r-cran-([\w.]+)", debian)
    assert sorted(installed) == sorted(p.lower() for p in DEBIAN_R_PACKAGES)
    assert DEBIAN.lacks() == ["fixest", "ivreg", "rdrobust", "rddensity", "modelsummary", "stargazer", "rdd"]
    assert DEBIAN.lacks("upstream") == ["fixest", "ivreg", "rdrobust", "rddensity", "modelsummary"]


class FakeDocker:
    """Scripted answers of the docker CLI: engine version (None: no engine), compose version, present images."""

    def __init__(
        self,
        server: str | None = "26.1.5",
        compose: str | None = "2.40.3",
        images=(),
        registry=False,
        cli=True,
        versions: dict[str, str] | None = None,
    ):
        self.server, self.compose, self.images, self.registry, self.cli = server, compose, set(images), registry, cli
        self.versions = versions  # what Rscript in a container of any present image prints (None: it fails)
        self.runs: list[str] = []

    def __call__(self, argv, timeout=None):
        if not self.cli:
            return None
        done = lambda rc, out="", err="": subprocess.CompletedProcess(argv, rc, out, err)  # noqa: E731
        if argv[1] == "version":
            return done(0, self.server + "\n") if self.server else done(1, "", "Cannot connect to the Docker daemon")
        if argv[1:3] == ["compose", "version"]:
            return done(0, self.compose + "\n") if self.compose else done(1, "", "unknown command")
        if argv[1:3] == ["image", "inspect"]:
            return done(0 if argv[-1] in self.images else 1)
        if argv[1:3] == ["manifest", "inspect"]:
            return done(0 if self.registry else 1)
        if argv[1] == "run":
            image = argv[argv.index("Rscript") + 1]
            self.runs.append(image)
            if self.versions is None or image not in self.images:
                return done(125, "", f"Unable to find image '{image}' locally")
            return done(0, "".join(f"{k}\t{v}\n" for k, v in self.versions.items()))
        return done(0)


@pytest.fixture
def fake(monkeypatch):
    def install(**kwargs) -> FakeDocker:
        cli = FakeDocker(**kwargs)
        monkeypatch.setattr(docker, "_run", cli)
        docker.probe_engine.cache_clear()
        return cli

    monkeypatch.setattr(choice, "bwrap_available", lambda: True)
    monkeypatch.setattr(choice, "host_r_packages", lambda: frozenset({"AER", "plm", "dplyr"}))
    yield install
    docker.probe_engine.cache_clear()


def one_sentence(message: str) -> bool:
    return message.count(". ") == 0 and message.endswith(".")


def test_auto_without_engine_runs_confined_and_names_what_it_lacks(fake, capsys):
    fake(server=None)
    chosen = choice.choose_sandbox("auto")
    assert chosen.sandbox == "confined" and chosen.profile == "host" and "no Docker engine answers" in chosen.reason
    assert "fixest" in chosen.lacks and "AER" not in chosen.lacks
    choice.announce(chosen)
    assert capsys.readouterr().err.startswith("exp_b: sandbox auto -> confined (")


def test_auto_prefers_a_present_image_and_records_it(fake):
    fake(images={DEBIAN.image})
    chosen = choice.choose_sandbox("auto")
    assert (chosen.sandbox, chosen.image, chosen.engine, chosen.requested) == (
        "docker-debian",
        DEBIAN.image,
        "26.1.5",
        "auto",
    )
    assert "build" not in yaml.safe_load(open(chosen.compose))["services"]["default"]  # present: no rebuild
    assert chosen.spec(60).type == "docker" and chosen.metadata()["lacks"] == DEBIAN.lacks()
    fake(images={DEBIAN.image, CRAN.image})
    assert choice.choose_sandbox("auto").image == CRAN.image
    fake(registry=True)  # nothing present, the registry answers: build the CRAN image at task start
    chosen = choice.choose_sandbox("auto")
    assert chosen.image == CRAN.image and chosen.compose == str(CRAN.compose) and "built at task start" in chosen.reason


def test_auto_with_upstream_profile_uses_only_the_upstream_image(fake):
    fake(images={DEBIAN.image, CRAN.image})
    chosen = choice.choose_sandbox("auto", "upstream")
    assert chosen.sandbox == "confined" and chosen.reference == "upstream"
    assert IMAGES[("docker", "upstream")].image in chosen.reason and "stargazer" not in chosen.lacks
    fake(images={IMAGES[("docker", "upstream")].image})
    assert choice.choose_sandbox("auto", "upstream").profile == "upstream"


def test_auto_asks_only_the_image_it_chose_for_its_versions(fake, monkeypatch):
    cli = fake(images={DEBIAN.image, CRAN.image}, versions={"R": "4.2.2", "fixest": "0.12.1"})
    chosen = choice.choose_sandbox("auto")
    assert chosen.image == CRAN.image and chosen.package_versions == {"fixest": "0.12.1"}
    assert cli.runs == [CRAN.image]  # one container run, none for the Debian image it passed over
    monkeypatch.setattr(choice, "host_r_packages", lambda: frozenset(R_PACKAGES_FULL) - {"rdd"})
    cli = fake(images={DEBIAN.image}, versions={"R": "4.2.2"})
    assert choice.choose_sandbox("auto").sandbox == "confined" and cli.runs == []  # no image chosen: no run


def test_auto_chooses_the_environment_lacking_the_fewest_reference_packages(fake, monkeypatch):
    host_with_fixest = frozenset(R_PACKAGES_FULL) - {"rdd", "stargazer"}  # fixest, rdrobust... built from source
    monkeypatch.setattr(choice, "host_r_packages", lambda: host_with_fixest)
    fake(images={DEBIAN.image})
    chosen = choice.choose_sandbox("auto")
    assert chosen.sandbox == "confined" and chosen.lacks == ["stargazer", "rdd"]
    assert f"{DEBIAN.image} lacks 7, confined lacks 2" in chosen.reason
    monkeypatch.setattr(choice, "host_r_packages", lambda: frozenset(DEBIAN_R_PACKAGES))
    tie = choice.choose_sandbox("auto")
    assert tie.sandbox == "docker-debian" and f"{DEBIAN.image} lacks 7, confined lacks 7" in tie.reason


@pytest.mark.parametrize(
    "case, kwargs, needle",
    [
        ("no engine", dict(server=None), "no Docker engine answers"),
        ("no docker command", dict(cli=False), "no docker command"),
        ("engine too old", dict(server="20.10.24+dfsg1"), "20.10.24+dfsg1, older than the 24.0.6"),
        ("no compose", dict(compose=None), "Docker Compose v2 >= 2.21.0"),
        ("no image, offline", dict(), "cannot be built offline"),
    ],
)
def test_explicit_docker_fails_with_one_sentence_when_impossible(fake, case, kwargs, needle):
    fake(**kwargs)
    with pytest.raises(SuiteInputError) as err:
        choice.choose_sandbox("docker")
    message = str(err.value)
    assert needle in message and "-T sandbox=confined" in message and one_sentence(message), message


def test_explicit_choices_are_obeyed_or_refused(fake):
    fake(images={DEBIAN.image, CRAN.image})
    assert choice.choose_sandbox("docker").image == CRAN.image
    assert choice.choose_sandbox("confined").sandbox == "confined"
    assert choice.choose_sandbox("local").sandbox == "confined"
    fake()
    with pytest.raises(SuiteInputError, match="build.sh debian"):
        choice.choose_sandbox("docker-debian")
    with pytest.raises(SuiteInputError, match="profile"):
        choice.choose_sandbox("docker-debian", "upstream")
    upstream = choice.choose_sandbox("confined", "upstream")
    assert upstream.reference == "upstream" and "stargazer" not in upstream.lacks and "fixest" in upstream.lacks
    with pytest.raises(SuiteInputError, match="'profile' is 'tidy'"):
        choice.choose_sandbox("auto", "tidy")
    with pytest.raises(SuiteInputError, match="auto, docker, docker-debian, confined"):
        choice.choose_sandbox("vm")


def test_no_sandbox_at_all_is_one_sentence(fake, monkeypatch):
    fake(server=None)
    monkeypatch.setattr(choice, "bwrap_available", lambda: False)
    with pytest.raises(SuiteInputError, match="no sandbox can run here.*bubblewrap"):
        choice.choose_sandbox("auto")


def test_confined_records_the_r_version_and_the_reference_packages_present(fake, monkeypatch):
    versions = {"R": "4.2.2", "AER": "1.2-10", "plm": "2.6-2", "quantmod": "0.4.20"}
    monkeypatch.setattr(choice, "host_r_versions", lambda: versions)
    monkeypatch.setattr(choice, "host_r_packages", lambda: frozenset(versions) - {"R"})
    chosen = choice.choose_sandbox("confined", "upstream")
    recorded = chosen.metadata()
    assert recorded["r_version"] == "4.2.2" and recorded["reference"] == "upstream"
    assert recorded["package_versions"] == {"AER": "1.2-10", "plm": "2.6-2"}  # reference packages only
    assert "R 4.2.2" in chosen.message() and "upstream reference set" in chosen.message()


def test_confined_records_and_names_the_r_libs_libraries_it_shows(fake, monkeypatch, readable_dir_factory):
    library = readable_dir_factory()
    monkeypatch.setattr(choice, "host_r_versions", lambda: {"R": "4.2.2"})
    monkeypatch.setenv("R_LIBS", f"{library}:{library / 'missing'}")
    chosen = choice.choose_sandbox("confined")
    assert chosen.metadata()["r_libraries"] == [str(library)]
    assert f"with the R_LIBS libraries {library};" in chosen.message()
    monkeypatch.delenv("R_LIBS")
    assert (
        choice.choose_sandbox("confined").r_libraries == []
        and "R_LIBS" not in choice.choose_sandbox("confined").message()
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives each sample a uid of its own")
def test_a_library_the_samples_uid_cannot_read_is_one_sentence_before_any_sample(fake, monkeypatch, tmp_path):
    fake(server=None)
    (tmp_path / "rlib").mkdir()
    tmp_path.chmod(0o700)
    monkeypatch.setenv("R_LIBS", str(tmp_path / "rlib"))
    for requested in ("confined", "auto"):
        with pytest.raises(
            SuiteInputError,
            match=f"names {tmp_path / 'rlib'}, which the confined sandbox cannot read: {tmp_path} is mode drwx------",
        ) as caught:
            choice.choose_sandbox(requested)
        assert one_sentence(str(caught.value))
    (tmp_path / "rlib").chmod(0o700)
    tmp_path.chmod(0o755)
    with pytest.raises(SuiteInputError, match="rlib is mode drwx------"):
        choice.choose_sandbox("confined")


def test_docker_records_the_r_and_package_versions_of_a_present_image(fake):
    versions = {"R": "4.4.2", "fixest": "0.12.1", "rdrobust": "2.2", "stargazer": "5.2.3", "Rcpp": "1.0.14"}
    cli = fake(images={CRAN.image}, versions=versions)
    chosen = choice.choose_sandbox("docker")
    assert cli.runs == [CRAN.image]  # asked of the image itself, in a container of its own
    assert chosen.r_version == "4.4.2" and "with R 4.4.2" in chosen.message()
    assert chosen.package_versions == {"fixest": "0.12.1", "rdrobust": "2.2", "stargazer": "5.2.3"}
    assert chosen.version_pins == {} and chosen.outside_pins == {}  # profile full: no pins
    fake(registry=True, versions=versions)  # built at task start: nothing to ask yet
    built = choice.choose_sandbox("docker")
    assert built.r_version is None and built.package_versions == {}


def test_upstream_profile_flags_a_reference_package_outside_its_pin(fake, monkeypatch):
    versions = {"R": "4.2.2", "rdrobust": "4.0.0", "rddensity": "2.6", "fixest": "0.13.2", "AER": "1.2-10"}
    monkeypatch.setattr(choice, "host_r_versions", lambda: versions)
    monkeypatch.setattr(choice, "host_r_packages", lambda: frozenset(versions) - {"R"})
    fake(server=None)
    chosen = choice.choose_sandbox("confined", "upstream")
    assert chosen.version_pins["rdrobust"] == ">=3.0, <4.0" and chosen.outside_pins == {"rdrobust": "4.0.0"}
    assert "rdrobust 4.0.0 lies outside the upstream pin >=3.0, <4.0" in chosen.message()
    assert chosen.metadata()["outside_pins"] == {"rdrobust": "4.0.0"}
    assert choice.choose_sandbox("confined").outside_pins == {}  # the full profile pins nothing


@pytest.mark.parametrize(
    ("versions", "outside"),
    [
        ({"rdrobust": "3.0.0", "rddensity": "2.4", "fixest": "0.12.1"}, {}),
        (
            {"rdrobust": "2.2", "rddensity": "3.0", "fixest": "0.11.2"},
            {"rdrobust": "2.2", "rddensity": "3.0", "fixest": "0.11.2"},
        ),
        ({"fixest": "0.13.99"}, {}),  # absent packages are the `lacks` list, not a pin question
    ],
)
def test_pins_are_half_open_version_ranges(versions, outside):
    assert outside_pins("upstream", versions) == outside
    assert version_key("1.2-10") == (1, 2, 10) and version_key("0.13.2") > version_key("0.13")
    assert set(pin_text("upstream")) == {"rdrobust", "rddensity", "fixest"} and pin_text("full") == {}
