#!/usr/bin/python3
"""doc_pkg.py — what a package costs beside its translation (issue 47; part of `make bench`).

    /usr/bin/python3 bench/doc_pkg.py [--pages 100] [--rounds 3] [--images-mb 40]

A Word document of PAGES pages (40 Multi30k training captions a page, 4 to 6 a paragraph, a
third of the paragraphs with a bold word, a heading every 10 pages; made by python-docx) is
translated by `xlate -i doc.docx -o out.docx`, and the same text as plain lines (a paragraph a
line) by `xlate -i doc.txt -o out.txt`: the difference is what the document costs (the zip read
and written, the XML parsed and built, the alignments for the bold runs, the parts written
back), given as a share of the plain run's translation. Best of ROUNDS each, 2 threads, process
start and model load included in both.

Memory: the same document with IMAGES_MB of incompressible images (ten members) beside the
text. The package's peak anonymous memory (RssAnon, sampled every 5 ms from /proc: the heap,
not the input file's mapped pages, which the kernel may drop) against the document without
images: the images are copied compressed, a member at a time, so the peak is the largest text
part's, not the package's. Peak RSS (VmHWM, mapped pages included) is printed too.
"""
import argparse
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
X = os.path.join(TOP, "xlate")


def make(dirname, pages, images_mb):
    import docx
    rnd = random.Random(23)
    lines = [l.strip() for l in gzip.open(os.path.join(TOP, "tests/data/multi30k/train.en.gz"),
                                          "rt", encoding="utf-8")]
    lines = [l if re.search(r"[.!?]$", l) else l + "." for l in lines if l]
    d = docx.Document()
    plain = []
    k = 0
    for page in range(pages):
        if page % 10 == 0:
            d.add_heading("A day in the park, part %d." % (page // 10 + 1), 1)
            plain.append("A day in the park, part %d." % (page // 10 + 1))
        n = 0
        while n < 40:
            m = rnd.randint(4, 6)
            sents = lines[k:k + m]
            k += m
            n += m
            text = " ".join(sents)
            p = d.add_paragraph()
            words = text.split(" ")
            if len(plain) % 3 == 0 and len(words) > 4:
                j = rnd.randint(1, len(words) - 2)
                p.add_run(" ".join(words[:j]) + " ")
                p.add_run(words[j]).bold = True
                p.add_run(" " + " ".join(words[j + 1:]))
            else:
                p.add_run(text)
            plain.append(text)
    d.save(os.path.join(dirname, "doc.docx"))
    with open(os.path.join(dirname, "doc.txt"), "w") as f:
        f.write("\n".join(plain) + "\n")
    # the same document with images beside it (members of incompressible bytes)
    with zipfile.ZipFile(os.path.join(dirname, "doc.docx")) as zi, \
            zipfile.ZipFile(os.path.join(dirname, "img.docx"), "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            zo.writestr(i, zi.read(i))
        for n in range(10):
            zo.writestr("word/media/image%d.png" % (n + 1), os.urandom(images_mb * 1024 * 1024 // 10))
    return len(plain), sum(len(re.findall(r"[.!?](?= |$)", t)) for t in plain)


def run(args, sample=False):
    """(wall seconds, peak RssAnon kB, peak VmHWM kB, stderr) of xlate args."""
    t0 = time.monotonic()
    p = subprocess.Popen([X] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0, 0]

    def watch():
        while p.poll() is None:
            try:
                with open("/proc/%d/status" % p.pid) as f:
                    for line in f:
                        if line.startswith("RssAnon:"):
                            peak[0] = max(peak[0], int(line.split()[1]))
                        elif line.startswith("VmHWM:"):
                            peak[1] = max(peak[1], int(line.split()[1]))
            except OSError:
                break
            time.sleep(0.005)
    th = threading.Thread(target=watch) if sample else None
    if th:
        th.start()
    err = p.communicate()[1].decode()
    wall = time.monotonic() - t0
    if th:
        th.join()
    if p.returncode:
        sys.exit("xlate %s: exit %d: %s" % (" ".join(args), p.returncode, err))
    return wall, peak[0], peak[1], err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--images-mb", type=int, default=40)
    a = ap.parse_args()
    if not os.access(X, os.X_OK):
        sys.exit("doc_pkg: run make first")
    with tempfile.TemporaryDirectory() as T:
        paras, sents = make(T, a.pages, a.images_mb)
        dx, tx = os.path.join(T, "doc.docx"), os.path.join(T, "doc.txt")
        best = {"docx": None, "plain": None}
        verbose = {}
        for _ in range(a.rounds):
            for kind, src, out in (("plain", tx, "out.txt"), ("docx", dx, "out.docx")):
                w, _, _, err = run(["-v", "--threads", "2", "-i", src, "-o", os.path.join(T, out)])
                if best[kind] is None or w < best[kind]:
                    best[kind] = w
                    verbose[kind] = err
        img = run(["-q", "--threads", "2", "-i", os.path.join(T, "img.docx"), "-o",
                   os.path.join(T, "img_out.docx")], sample=True)
        txt = run(["-q", "--threads", "2", "-i", dx, "-o", os.path.join(T, "out2.docx")], sample=True)
        m = re.search(r"parse ([0-9.]+) s, translate ([0-9.]+) s, total ([0-9.]+) s", verbose["docx"])
        cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'"],
                             stdout=subprocess.PIPE).stdout.decode().strip()
        doc_kb = os.path.getsize(dx) // 1024
        part_kb = zipfile.ZipFile(dx).getinfo("word/document.xml").file_size // 1024
        print("## Packages: a %d-page .docx against the same text as plain lines" % a.pages)
        print()
        print("CPU: %s, %d cores; %s" % (cpu, os.cpu_count(), time.strftime("%Y-%m-%d", time.gmtime())))
        print()
        print("Input: %d paragraphs, %d sentences (%d kB .docx, word/document.xml %d kB); 2 "
              "threads, best of %d runs each, process start and model load included." %
              (paras, sents, doc_kb, part_kb, a.rounds))
        print()
        over = best["docx"] - best["plain"]
        print("| run | wall s |")
        print("|---|---:|")
        print("| plain lines (`-i doc.txt`) | %.3f |" % best["plain"])
        print("| the package (`-i doc.docx -o out.docx`) | %.3f |" % best["docx"])
        print("| the package's own cost | %.3f (%.1f%% of the plain run) |" % (over, 100 * over / best["plain"]))
        if m:
            p_s, t_s, tot = map(float, m.groups())
            print()
            print("-v of the package's best run: parse and write-back %.3f s, translation %.3f s "
                  "(the text parts' parse, build and write %.1f%% of the translation), total %.3f s." %
                  (p_s, t_s, 100 * p_s / t_s, tot))
        print()
        print("Memory: peak RssAnon %d kB for the document alone, %d kB with %d MB of images "
              "beside it (+%d kB); peak VmHWM %d kB and %d kB (the mapped input's pages "
              "included)." % (txt[1], img[1], a.images_mb, img[1] - txt[1], txt[2], img[2]))


if __name__ == "__main__":
    main()
