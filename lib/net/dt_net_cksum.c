/* SPDX-License-Identifier: BSD-3-Clause */
/* Checksums: being written. */
