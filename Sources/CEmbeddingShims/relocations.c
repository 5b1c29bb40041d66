/* The library's relocation table (.rela.dyn, about 3 MB: one entry for each pointer in the Swift
 * metadata, applied once when the library is loaded) is not read again after loading, but its
 * pages stay resident in every host process. Packed relocations (DT_RELR) would make it 25 KB,
 * but need glibc 2.36's loader, and the library supports glibc 2.31. So once it is loaded, the
 * library gives those pages back (MADV_DONTNEED on a clean, file-backed mapping: should anything
 * read them again, they are read back from the file). */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static int release_relocations(struct dl_phdr_info *info, size_t size, void *self) {
    (void)size;
    const ElfW(Dyn) *dynamic = NULL;
    int contains_self = 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD && (uintptr_t)self >= start && (uintptr_t)self < start + header->p_memsz) {
            contains_self = 1;
        }
        if (header->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)start;
    }
    if (!contains_self || dynamic == NULL) return 0;
    uintptr_t table = 0, bytes = 0;
    for (; dynamic->d_tag != DT_NULL; dynamic++) {
        if (dynamic->d_tag == DT_RELA) table = dynamic->d_un.d_ptr;
        if (dynamic->d_tag == DT_RELASZ) bytes = dynamic->d_un.d_val;
    }
    if (table == 0 || bytes == 0) return 1;
    /* glibc's loader rewrites the entry to an address; another may leave it an offset. */
    if (table < info->dlpi_addr) table += info->dlpi_addr;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = (table + page - 1) & ~(page - 1);
    uintptr_t end = (table + bytes) & ~(page - 1);
    if (end > first) madvise((void *)first, end - first, MADV_DONTNEED);
    return 1;
}

__attribute__((constructor)) static void release_relocations_after_loading(void) {
    dl_iterate_phdr(release_relocations, (void *)&release_relocations_after_loading);
}
