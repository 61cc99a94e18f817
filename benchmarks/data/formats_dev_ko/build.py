#!/usr/bin/env python3
"""Build formats_dev_ko (four Korean internal documents, original writing), then check the QA file against them.

    python build.py [--out DIR] [--fonts /usr/share/fonts/truetype] [--qa FILE]

The documents are written for this set: the organisations (주식회사 한결정밀, 재단법인 한누리소재기술원,
주식회사 다온씨앤에스), people, departments and figures are invented. All text is in this file; nothing is
downloaded. Fonts: fonts-nanum (NanumMyeongjo, NanumMyeongjoBold) for the scan.
Needs python-hwpx 6.9.0, python-docx, Pillow, numpy, pypdf, olefile (the repo venv) and ../fmtlib.py (imported
unchanged).

After building, every file is opened again with its own library and every "answer" / "evidence" of the QA file
(../rag_formats_dev_ko.jsonl) is looked up in that file's text, at the location or page the item names. For the
image-only scan the text of a page is what the renderer drew on it (recorded in scan_pages.json next to this
script; a table row is recorded as its cells joined by spaces).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py (benchmarks/data/fmtlib.py, unchanged)
import fmtlib as F  # noqa: E402

SET = "formats_dev_ko"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}

FILES = {
    "hwpx": "hangyeol_infosec_guideline.hwpx",
    "hwp": "hannuri_rnd_expense_guideline.hwp",
    "scan": "daon_remote_work_rules_scan.pdf",
    "docx": "hangyeol_pyeongtaek_logistics_automation_plan.docx",
}

# ---------------------------------------------------------------------------
# 1. HWPX: 정보보안 관리지침 (주식회사 한결정밀) — statute style
# ---------------------------------------------------------------------------
INFOSEC = [
    ("h1", "정보보안 관리지침"),
    ("p", "(제정 2021. 3. 2. 지침 제2021-2호 / 개정 2025. 7. 1. 지침 제2025-14호)"),
    ("p", "주식회사 한결정밀 경영지원본부 정보보안팀"),
    ("h1", "제1장 총칙"),
    ("p", "제1조(목적) 이 지침은 주식회사 한결정밀(이하 \"회사\"라 한다)의 정보자산을 보호하고 정보보안 사고를 예방하기 "
          "위하여 임직원이 지켜야 할 보안 관리 기준과 절차를 정함을 목적으로 한다."),
    ("p", "제2조(적용 범위) ① 이 지침은 회사의 모든 임직원과 회사 정보시스템을 이용하는 파견근로자, 협력업체 직원 및 "
          "인턴에게 적용한다."),
    ("p", "② 국외 법인과 부설 연구소에는 현지 법령에 어긋나지 아니하는 범위에서 이 지침을 준용한다."),
    ("p", "제3조(정의) 이 지침에서 사용하는 용어의 뜻은 다음과 같다."),
    ("p", "1. \"정보자산\"이란 회사가 보유한 문서, 전자파일, 설계도면, 소스코드, 정보시스템 및 이를 저장한 매체를 말한다."),
    ("p", "2. \"정보시스템\"이란 업무용 PC, 서버, 네트워크 장비, 그룹웨어, 전사적 자원관리(ERP) 시스템 및 회사가 계약한 "
          "클라우드 서비스를 말한다."),
    ("p", "3. \"이동식 저장매체\"란 USB 메모리, 외장형 하드디스크, SD카드 등 PC에 연결하여 자료를 저장하거나 옮길 수 있는 "
          "매체를 말한다."),
    ("p", "4. \"보안사고\"란 정보자산의 유출, 훼손, 무단 변경, 악성코드 감염 또는 정보시스템 장애로 업무에 지장을 주는 "
          "사건을 말한다."),
    ("p", "제4조(정보보안 조직) ① 회사의 정보보안 업무를 총괄하기 위하여 최고정보보안책임자를 두며, 경영지원본부장이 이를 "
          "겸임한다."),
    ("p", "② 정보보안팀은 이 지침의 운영, 보안시스템 관리, 보안점검 및 보안교육을 담당한다."),
    ("p", "③ 각 부서의 장은 소속 직원 중에서 부서 보안담당자를 1명 지정하여 정보보안팀에 알려야 한다."),
    ("p", "④ 부서 보안담당자는 매월 말일까지 부서 보안점검표를 작성하여 정보보안팀에 제출한다."),
    ("h1", "제2장 정보자산 및 정보시스템 관리"),
    ("p", "제5조(정보자산의 분류) ① 정보자산은 중요도에 따라 극비, 대외비, 사내한정, 공개의 4개 등급으로 분류하며, "
          "등급별 관리기준은 별표 1과 같다."),
    ("p", "② 정보자산을 생산한 부서의 장은 생산할 때 보안등급을 지정하고 문서의 첫 면 오른쪽 위에 표시하여야 한다."),
    ("p", "③ 보안등급의 재분류는 매년 12월에 실시한다."),
    ("p", "제6조(비밀번호 관리) ① 정보시스템의 비밀번호는 영문 대문자, 영문 소문자, 숫자, 특수문자 중 3종류 이상을 "
          "조합하여 10자리 이상으로 설정하여야 한다."),
    ("p", "② 비밀번호는 90일마다 변경하여야 하며, 직전에 사용한 비밀번호 3개는 다시 사용할 수 없다."),
    ("p", "③ 비밀번호를 5회 연속하여 잘못 입력하면 계정이 잠기며, 잠금 해제는 본인 확인을 거쳐 IT헬프데스크(내선 2580)에 "
          "요청한다."),
    ("p", "제7조(계정 관리) ① 신규 계정은 소속 부서장의 승인을 받아 정보보안팀이 발급한다."),
    ("p", "② 인사팀은 임직원의 퇴직, 휴직 또는 전보가 확정되면 발령일 전날까지 정보보안팀에 알려야 하며, 정보보안팀은 "
          "퇴직자의 계정을 퇴직일 당일에 삭제한다."),
    ("p", "③ 90일 이상 접속 기록이 없는 계정은 잠금 처리하고, 잠금 후 30일이 지나도 해제 요청이 없으면 삭제한다."),
    ("p", "제8조(업무용 PC 보안) ① 임직원은 업무용 PC에 회사가 배포한 백신과 문서보안(DRM) 프로그램을 설치하여야 하며, "
          "이를 임의로 삭제하거나 중지하여서는 아니 된다."),
    ("p", "② 자리를 비울 때에는 화면을 잠가야 하며, 10분 동안 입력이 없으면 화면보호기가 자동으로 실행되도록 설정한다."),
    ("p", "③ 회사가 허용하지 아니한 소프트웨어를 설치하려는 경우에는 소프트웨어 설치 신청서를 제출하여 정보보안팀의 "
          "승인을 받아야 한다."),
    ("p", "④ 퇴근할 때에는 PC의 전원을 끄는 것을 원칙으로 한다. 다만, 시험 장비와 연결된 PC 등 업무상 필요한 경우에는 "
          "그러하지 아니하다."),
    ("p", "제9조(이동식 저장매체) ① 이동식 저장매체는 정보보안팀에 등록한 보안 USB만 사용할 수 있으며, 개인 소유의 "
          "저장매체는 업무용 PC에 연결할 수 없다."),
    ("p", "② 보안 USB의 사용 기간은 발급일부터 1년으로 하며, 계속 사용하려는 사람은 기간이 끝나기 전에 갱신을 신청하여야 "
          "한다."),
    ("p", "③ 보안 USB를 잃어버린 사람은 즉시 정보보안팀에 신고하여야 한다."),
    ("p", "제10조(자료의 외부 반출) ① 대외비 등급의 자료를 외부로 반출하려면 자료반출 신청서를 작성하여 소속 부서장과 "
          "정보보안팀장의 승인을 받아야 하며, 극비 등급의 자료는 최고정보보안책임자의 승인을 받아야 한다."),
    ("p", "② 고객사나 협력업체에 설계도면을 보낼 때에는 회사가 지정한 보안 파일전송 시스템을 이용하여야 하며, 보낸 파일의 "
          "열람 기간은 7일로 제한한다."),
    ("p", "③ 정보보안팀은 자료 반출 기록을 3년간 보관한다."),
    ("p", "제11조(전자우편 및 메신저) ① 업무용 전자우편은 회사 메일 계정으로만 주고받아야 하며, 개인 메일로 업무 자료를 "
          "보내서는 아니 된다."),
    ("p", "② 외부로 보내는 메일의 첨부파일은 1건당 20MB를 넘을 수 없으며, 이를 넘는 파일은 보안 파일전송 시스템으로 "
          "보낸다."),
    ("p", "③ 업무 연락에는 회사가 도입한 사내 메신저를 사용하며, 외부 메신저로 업무 자료를 공유하여서는 아니 된다."),
    ("p", "제12조(클라우드 및 생성형 인공지능 서비스) ① 회사가 승인하지 아니한 외부 클라우드 저장소에 업무 자료를 "
          "올려서는 아니 된다."),
    ("p", "② 생성형 인공지능 서비스에는 사내한정 이상 등급의 자료, 고객 정보 및 소스코드를 입력하여서는 아니 된다."),
    ("p", "③ 업무에 생성형 인공지능 서비스를 활용하려는 부서는 정보보안팀과 미리 협의하여야 한다."),
    ("h1", "제3장 물리적 보안"),
    ("p", "제13조(출입 통제) ① 임직원은 사업장에 출입할 때 사원증을 출입통제 단말기에 인식시켜야 하며, 사원증을 다른 "
          "사람에게 빌려주어서는 아니 된다."),
    ("p", "② 서버실과 연구소 시험동은 출입 권한을 받은 사람만 출입할 수 있으며, 정보보안팀은 출입 권한을 분기마다 "
          "다시 검토한다."),
    ("p", "제14조(방문자 관리) ① 방문자는 안내데스크에서 신분증을 제시하고 방문증을 받아야 하며, 방문하는 부서의 직원이 "
          "동행하여야 한다."),
    ("p", "② 방문자가 촬영 기능이 있는 기기를 가지고 생산동에 들어가는 경우에는 카메라 렌즈에 보안 스티커를 붙인다."),
    ("p", "③ 방문 기록은 1년간 보관한다."),
    ("h1", "제4장 보안사고 대응, 교육 및 점검"),
    ("p", "제15조(보안사고 신고 및 보고) ① 보안사고를 발견한 임직원은 즉시 정보보안팀에 신고하여야 한다."),
    ("p", "② 정보보안팀은 신고를 받으면 지체 없이 초동 조치를 하고, 별표 2에서 정한 기한 안에 최고정보보안책임자에게 "
          "보고하여야 한다."),
    ("p", "③ 정보보안팀은 사고 처리가 끝난 날부터 14일 이내에 재발 방지 대책을 포함한 사고 결과 보고서를 작성한다."),
    ("p", "제16조(보안교육) ① 모든 임직원은 연 2회 이상 정보보안 교육을 이수하여야 한다."),
    ("p", "② 신규 입사자는 입사일부터 1개월 이내에 정보보안 기본교육을 이수하고 보안서약서를 제출하여야 한다."),
    ("p", "③ 정보보안팀은 연 1회 이상 모의 해킹메일 훈련을 실시하고 그 결과를 부서별로 알린다."),
    ("p", "제17조(보안점검) ① 정보보안팀은 분기마다 부서별 보안점검을 실시한다."),
    ("p", "② 점검 결과 지적을 받은 부서는 통보를 받은 날부터 10일 이내에 조치 결과를 제출하여야 한다."),
    ("p", "제18조(위반 시 조치) ① 이 지침을 위반한 임직원에게는 위반의 정도에 따라 경고, 보안교육 재이수 또는 "
          "인사위원회 회부 등의 조치를 할 수 있다."),
    ("p", "② 고의 또는 중대한 과실로 극비 등급의 자료를 유출한 사람은 취업규칙에 따라 징계한다."),
    ("p", "제19조(예외 승인) 업무상 부득이하게 이 지침을 따를 수 없는 경우에는 예외 승인 신청서를 제출하여 "
          "최고정보보안책임자의 승인을 받아야 하며, 예외 승인의 유효기간은 6개월을 넘을 수 없다."),
    ("h1", "부칙"),
    ("p", "<지침 제2025-14호, 2025. 7. 1.>"),
    ("p", "① (시행일) 이 지침은 2025년 7월 1일부터 시행한다."),
    ("p", "② (보안 USB에 관한 경과조치) 이 지침 시행 전에 등록한 일반 USB 메모리는 2025년 12월 31일까지 사용할 수 있다."),
    ("p", "③ (생성형 인공지능 서비스에 관한 적용례) 제12조제2항 및 제3항은 이 지침 시행 후 생성형 인공지능 서비스를 "
          "처음 이용하는 경우부터 적용한다."),
    ("h1", "별표 1 정보자산 보안등급별 관리기준"),
    ("p", "(제5조제1항 관련)"),
    ("table", [["등급", "대상 예시", "열람 범위", "출력·복사", "외부 반출", "보존기간"],
               ["극비", "핵심 설계도면, 원가 자료, 인수합병 자료", "지정된 담당자", "금지", "최고정보보안책임자 승인",
                "영구"],
               ["대외비", "고객사 납품 사양서, 시험 성적서, 인사평가 자료", "관련 부서", "부서장 승인 후 허용",
                "부서장 및 정보보안팀장 승인", "10년"],
               ["사내한정", "사내 공지, 업무 매뉴얼, 회의록", "전 임직원", "허용", "부서장 승인", "5년"],
               ["공개", "보도자료, 제품 카탈로그", "제한 없음", "허용", "제한 없음", "3년"]]),
    ("h1", "별표 2 보안사고 유형별 보고 기한"),
    ("p", "(제15조제2항 관련)"),
    ("table", [["사고 유형", "예시", "최고정보보안책임자 보고 기한", "주요 초동 조치"],
               ["자료 유출", "극비·대외비 자료의 외부 유출", "인지 후 1시간 이내", "유출 경로 차단, 법무팀 통보"],
               ["악성코드 감염", "랜섬웨어, 바이러스 감염", "인지 후 2시간 이내", "감염 PC 네트워크 분리, 전체 백신 검사"],
               ["계정 도용", "비밀번호 유출, 비인가 접속", "인지 후 4시간 이내", "비밀번호 초기화, 접속 기록 분석"],
               ["장비 분실", "노트북, 보안 USB, 사원증 분실", "인지 후 24시간 이내", "계정 잠금, 원격 데이터 삭제"]]),
]

# ---------------------------------------------------------------------------
# 2. HWP: 연구개발비 집행 지침 (재단법인 한누리소재기술원) — numbered sections
# ---------------------------------------------------------------------------
RND = [
    ("h1", "연구개발비 집행 지침"),
    ("p", "재단법인 한누리소재기술원 연구기획실 (지침 제2026-3호, 시행 2026. 1. 1.)"),
    ("h2", "1. 목적"),
    ("p", "이 지침은 재단법인 한누리소재기술원(이하 \"기술원\"이라 한다)이 수행하는 정부 및 민간 연구개발과제의 "
          "연구개발비를 투명하고 효율적으로 집행하기 위하여 비목별 집행 기준과 증빙 절차를 정함을 목적으로 한다."),
    ("h2", "2. 적용 범위"),
    ("p", "가. 이 지침은 기술원이 주관연구개발기관 또는 공동연구개발기관으로 참여하는 모든 연구개발과제에 적용한다."),
    ("p", "나. 전문기관과 맺은 협약의 조건이나 관계 법령에 이 지침과 다른 규정이 있는 경우에는 그 규정을 먼저 적용한다."),
    ("h2", "3. 용어의 정의"),
    ("p", "가. \"연구책임자\"란 연구개발과제의 수행과 연구개발비 집행을 총괄하는 사람을 말한다."),
    ("p", "나. \"연구비카드\"란 연구개발비를 집행하기 위하여 과제별로 발급한 기관 명의의 신용카드 또는 체크카드를 말한다."),
    ("p", "다. \"직접비\"란 인건비, 연구시설·장비비, 연구재료비, 연구활동비, 연구수당 및 위탁연구개발비를 말한다."),
    ("p", "라. \"간접비\"란 여러 연구개발과제 수행에 공통으로 드는 경비로서 직접비에 포함되지 아니하는 비용을 말한다."),
    ("h2", "4. 비목별 계상 기준"),
    ("p", "연구개발비는 다음 표의 기준에 따라 비목별로 계상한다."),
    ("table", [["비목", "주요 내용", "계상 기준"],
               ["인건비", "참여연구원의 급여와 4대 보험 기관부담금", "참여율에 따라 계상하며, 1인당 총 참여율은 100%를 넘을 수 없음"],
               ["연구시설·장비비", "연구장비의 구입·임차·설치비", "3천만원 이상 장비는 장비심의위원회 심의 후 구입"],
               ["연구재료비", "시약, 소모성 부품, 시제품 제작 재료", "과제 수행 기간 중 필요한 양만 계상"],
               ["연구활동비", "출장비, 회의비, 교육훈련비, 문헌 구입비", "실제 드는 경비로 계상"],
               ["연구수당", "참여연구원의 연구 성과에 대한 보상", "인건비의 20% 이내"],
               ["위탁연구개발비", "외부 기관에 맡기는 연구의 비용", "직접비의 40% 이내"],
               ["간접비", "기관 공통 경비", "전문기관이 고시한 간접비 비율 이내"]]),
    ("h2", "5. 비목별 집행 기준"),
    ("p", "가. 인건비는 매월 25일에 참여연구원 본인 명의의 계좌로 지급하며, 현금으로 지급할 수 없다."),
    ("p", "나. 연구재료를 1건에 500만원 이상 구입할 때에는 2개 이상 업체에서 견적서를 받아 비교하여야 한다."),
    ("p", "다. 연구재료비로 구입한 물품 가운데 단가가 100만원 이상인 물품은 기술원 자산으로 등록한다."),
    ("p", "라. 위탁연구개발비는 위탁연구 계약을 체결한 뒤에 집행하며, 계약 금액의 30% 이내에서 선금을 지급할 수 있다."),
    ("p", "마. 연구수당은 과제의 연차 평가가 끝난 뒤 연구책임자가 참여연구원의 기여도를 평가하여 지급한다."),
    ("h2", "6. 연구비카드 사용"),
    ("p", "가. 연구개발비는 연구비카드로 집행하는 것을 원칙으로 하며, 연구비카드를 쓸 수 없는 경우에만 계좌이체로 집행한다."),
    ("p", "나. 연구비카드는 연구 목적 외에 사용할 수 없으며, 유흥주점, 골프장, 노래연습장 등 제한 업종에서는 결제가 "
          "차단된다."),
    ("p", "다. 연구비카드로 결제한 사람은 결제일부터 7일 이내에 통합연구관리시스템에 사용 내역과 증빙을 등록하여야 한다."),
    ("p", "라. 연구비카드를 잃어버린 사람은 즉시 카드사와 재무회계팀에 신고하여야 하며, 신고 전에 생긴 부정 사용액은 "
          "카드 관리자가 부담한다."),
    ("h2", "7. 회의비 및 식비"),
    ("p", "가. 회의비는 과제 관련 회의에 참석한 사람의 식대와 다과비로 쓸 수 있으며, 1인당 1회 4만원을 넘을 수 없다."),
    ("p", "나. 회의비를 집행할 때에는 회의 일시, 장소, 참석자와 회의 내용을 적은 회의록을 첨부하여야 한다."),
    ("p", "다. 평일 오후 8시 이후까지 연구를 하거나 휴일에 연구를 한 경우에는 1인당 1식 12,000원 이내에서 식비를 "
          "집행할 수 있다."),
    ("p", "라. 주류 구입비는 회의비나 식비로 집행할 수 없다."),
    ("h2", "8. 출장"),
    ("p", "가. 출장비는 기술원 여비규정에 따라 지급하되, 출장 목적이 해당 연구개발과제와 직접 관련되어야 한다."),
    ("p", "나. 출장을 다녀온 연구원은 복귀한 날부터 5일 이내에 출장결과보고서를 통합연구관리시스템에 등록하여야 한다."),
    ("p", "다. 국외 출장은 출발 15일 전까지 연구책임자의 승인을 받아 원장에게 보고하여야 한다."),
    ("h2", "9. 증빙 및 정산"),
    ("p", "가. 모든 지출에는 세금계산서, 카드 매출전표, 거래명세서 등 적격증빙을 갖추어야 한다."),
    ("p", "나. 연구책임자는 연차별 협약 기간이 끝난 날부터 2개월 이내에 연구개발비 사용실적보고서를 제출하여야 한다."),
    ("p", "다. 정산 결과 쓰지 아니한 연구개발비와 그 이자는 전문기관에 반납한다."),
    ("p", "라. 연구개발비 집행 증빙 서류는 과제가 끝난 뒤 5년간 보관한다."),
    ("h2", "10. 결재 및 전결"),
    ("p", "연구개발비 집행의 전결권자는 1건의 집행 금액에 따라 다음 표와 같이 정한다."),
    ("table", [["집행 금액(1건 기준)", "전결권자", "비고"],
               ["100만원 미만", "연구책임자", "연구비카드 사용분 포함"],
               ["100만원 이상 1천만원 미만", "센터장", "500만원 이상은 견적서 2부 첨부"],
               ["1천만원 이상 5천만원 미만", "연구부원장", "재무회계팀에 구매계약 의뢰"],
               ["5천만원 이상", "원장", "계약심의위원회 심의"]]),
    ("h2", "11. 외부 전문가 활용"),
    ("p", "가. 과제 수행에 필요한 자문, 평가 또는 강의를 외부 전문가에게 맡기는 경우에는 연구활동비에서 자문료를 "
          "지급할 수 있다."),
    ("p", "나. 자문료는 1회 2시간 기준 30만원으로 하며, 같은 사람에게 하루에 지급하는 자문료는 50만원을 넘을 수 없다."),
    ("p", "다. 자문료를 지급할 때에는 소득세를 원천징수하고, 자문 결과를 적은 자문확인서를 받아 증빙으로 첨부한다."),
    ("p", "라. 기술원 소속 직원과 해당 과제의 참여연구원에게는 자문료를 지급할 수 없다."),
    ("h2", "12. 연구시설·장비 관리"),
    ("p", "가. 3천만원 이상의 연구장비를 구입한 연구책임자는 장비가 들어온 날부터 30일 이내에 기술원 장비관리시스템에 "
          "등록하여야 한다."),
    ("p", "나. 등록한 연구장비는 다른 과제의 연구원도 공동으로 이용할 수 있도록 이용 일정과 사용료를 공개한다."),
    ("p", "다. 과제가 끝난 뒤 연구장비는 기술원에 귀속되며, 장비의 처분이나 이전은 장비심의위원회의 심의를 거쳐야 한다."),
    ("h2", "13. 연구개발비 사용계획의 변경"),
    ("p", "가. 연구책임자는 협약한 비목별 금액의 20% 이내에서 직접비 비목 사이의 금액을 자체적으로 변경할 수 있다."),
    ("p", "나. 가목의 범위를 넘거나 인건비를 늘리려는 경우에는 변경 사유서를 작성하여 전문기관의 승인을 받아야 한다."),
    ("p", "다. 변경한 내용은 변경한 날부터 10일 이내에 통합연구관리시스템에 반영하여야 한다."),
    ("h2", "14. 부정 집행에 대한 조치"),
    ("p", "가. 연구개발비를 목적 외로 쓰거나 거짓 증빙으로 집행한 경우에는 해당 금액을 환수하고, 관련자를 인사위원회에 "
          "회부한다."),
    ("p", "나. 부정 집행이 확인된 연구책임자는 확인된 날부터 3년간 기술원 자체 연구과제의 연구책임자가 될 수 없다."),
    ("h2", "부칙"),
    ("p", "1. (시행일) 이 지침은 2026년 1월 1일부터 시행한다."),
    ("p", "2. (경과조치) 이 지침 시행 전에 협약을 체결한 과제의 회의비 한도는 종전 기준(1인당 1회 3만원)에 따른다."),
]

# ---------------------------------------------------------------------------
# 3. Korean scan: 원격근무 운영규정 (주식회사 다온씨앤에스), 2 pages, one ruled table
# ---------------------------------------------------------------------------
REMOTE_CAPTION = "<원격근무 유형별 운영 기준>"
REMOTE_TABLE = [["유형", "사용 한도", "신청 기한", "승인권자"],
                ["정기형", "주 2일 이내", "전월 25일까지", "부서장"],
                ["수시형", "월 4일 이내", "사용 전날 18시까지", "팀장"],
                ["집중형", "연 1회, 최대 4주", "시작 2주 전까지", "본부장"]]
REMOTE = [
    ("title", "원격근무 운영규정"),
    ("center", "(제정 2024. 1. 2. / 개정 2025. 9. 1.)"),
    ("right", "주식회사 다온씨앤에스 인사팀"),
    ("gap", 0.3),
    ("p", "제1조(목적) 이 규정은 주식회사 다온씨앤에스(이하 \"회사\"라 한다) 임직원의 원격근무 신청, 승인, "
          "근무관리 및 지원에 관한 사항을 정함을 목적으로 한다."),
    ("p", "제2조(정의) 이 규정에서 \"원격근무\"란 임직원이 회사 사무실이 아닌 자택 또는 회사가 지정한 거점오피스에서 "
          "정보통신기기를 이용하여 근무하는 것을 말한다."),
    ("p", "제3조(대상) ① 입사 후 3개월이 지난 정규직 임직원은 원격근무를 신청할 수 있다."),
    ("p", "② 다음 각 호의 어느 하나에 해당하는 사람은 원격근무 대상에서 제외한다."),
    ("p", "1. 수습기간 중인 사람"),
    ("p", "2. 생산·물류 현장에서 설비를 직접 운용하는 사람"),
    ("p", "3. 최근 6개월 안에 보안 위반으로 경고 이상의 조치를 받은 사람"),
    ("p", "제4조(유형) ① 원격근무의 유형과 유형별 운영 기준은 다음 표와 같다."),
    ("center", REMOTE_CAPTION),
    ("TABLE", None),
    ("p", "② 집중형 원격근무는 임신 중이거나 만 8세 이하의 자녀를 둔 임직원, 질병 치료 중인 임직원이 신청할 수 있다."),
    ("p", "제5조(신청 및 승인) ① 원격근무를 하려는 임직원은 인사시스템에서 원격근무 신청서를 제출하여 제4조의 "
          "승인권자에게 승인을 받아야 한다."),
    ("p", "② 승인권자는 대면 협업이 필요한 업무 일정이 있으면 원격근무를 승인하지 아니하거나 일정을 조정할 수 있다."),
    ("p", "제6조(근무시간 및 근태) ① 원격근무일의 근무시간은 사무실 근무와 같이 09시부터 18시까지로 하고, "
          "휴게시간은 12시부터 13시까지로 한다."),
    ("p", "② 원격근무자는 근무를 시작할 때와 마칠 때 근태시스템에 접속하여 출근과 퇴근을 등록하여야 한다."),
    ("p", "③ 원격근무일에 연장근로를 하려면 미리 부서장의 승인을 받아야 한다."),
    ("p", "④ 원격근무자는 근무시간 중 사내 메신저 접속 상태를 유지하고, 업무 연락에는 30분 이내에 응답하여야 한다."),
    ("p", "제7조(근무 장소) ① 원격근무는 신청서에 적은 장소에서 하여야 하며, 카페 등 불특정 다수가 이용하는 "
          "장소에서는 할 수 없다."),
    ("p", "② 국외에서 하는 원격근무는 허용하지 아니한다."),
    ("p", "제8조(정보보안) ① 원격근무자는 회사가 지급한 노트북으로 가상사설망(VPN)에 접속하여 사내 시스템을 "
          "이용하여야 한다."),
    ("p", "② 원격근무 중에는 업무 자료를 출력할 수 없으며, 화상회의에서 화면을 공유하기 전에 관계없는 자료를 닫아야 한다."),
    ("p", "제9조(지원) ① 회사는 원격근무를 한 달에 1일 이상 한 임직원에게 통신비로 월 3만원을 급여와 함께 지급한다."),
    ("p", "② 정기형 원격근무자가 모니터 등 업무 장비를 신청하면 회사는 1인당 30만원 한도에서 장비를 빌려준다."),
    ("p", "제10조(출근 명령) 부서장은 긴급한 업무, 장애 대응 또는 대면 회의가 필요하면 원격근무일에도 출근을 명할 수 "
          "있으며, 이 경우 전날 17시까지 알리는 것을 원칙으로 한다."),
    ("p", "제11조(원격근무의 제한) 근태 등록을 3회 이상 빠뜨리거나 제8조를 위반한 사람은 그날부터 3개월간 원격근무를 "
          "신청할 수 없다."),
    ("p", "제12조(성과 관리) ① 원격근무자의 업무 성과는 사무실 근무자와 같은 기준으로 평가하며, 원격근무를 이유로 "
          "평가에서 불이익을 주어서는 아니 된다."),
    ("p", "② 원격근무자는 매주 금요일까지 주간 업무계획과 실적을 협업시스템에 등록한다."),
    ("p", "제13조(운영 현황 점검) 인사팀은 반기마다 부서별 원격근무 사용 현황을 조사하여 대표이사에게 보고하고, "
          "필요하면 제4조의 사용 한도를 조정할 것을 건의할 수 있다."),
    ("h", "부칙"),
    ("p", "① (시행일) 이 규정은 2025년 9월 1일부터 시행한다."),
    ("p", "② (경과조치) 이 규정 시행 당시 이미 승인된 원격근무 일정은 2025년 9월 30일까지 종전의 규정에 따른다."),
]

# ---------------------------------------------------------------------------
# 4. DOCX: 2026년 평택 물류센터 자동화 구축 사업계획서 (주식회사 한결정밀)
# ---------------------------------------------------------------------------
PLAN = [
    ("title", "2026년 평택 물류센터 자동화 구축 사업계획서"),
    ("meta", [["작성 부서", "물류혁신TF (TF장: SCM본부장 박정우 상무)"], ["작성일", "2025년 11월 17일"],
              ["보고 대상", "투자심의위원회"], ["보안등급", "대외비"]]),
    ("h1", "1. 사업 개요"),
    ("h2", "1.1 추진 배경"),
    ("p", "평택 물류센터는 2014년 준공 이후 회사 완제품과 보수용 부품의 출고를 전담하고 있다. 출고 물량은 2021년 대비 "
          "2024년에 62% 늘었지만 보관 설비와 작업 방식은 준공 당시와 크게 다르지 않다. 이 때문에 성수기마다 출고가 "
          "지연되고, 보관 공간이 부족하여 화성과 오산의 외부 창고 2곳을 임차하여 쓰고 있다."),
    ("p", "주요 고객사들이 2026년부터 납품 리드타임을 48시간에서 24시간으로 줄여 달라고 요구하고 있어, 현재의 수작업 "
          "중심 구조로는 대응이 어렵다고 판단하였다. 2025년 상반기 고객 만족도 조사에서도 납기 준수 항목은 100점 만점에 "
          "71점으로 전 항목 가운데 가장 낮았다."),
    ("h2", "1.2 사업 목표"),
    ("li", "일일 출고 처리량을 현재 3,200박스에서 5,500박스로 늘린다."),
    ("li", "출고 오류율을 0.42%에서 0.1% 이하로 낮춘다."),
    ("li", "피킹 작업자 1인당 시간당 처리량을 40% 높인다."),
    ("li", "외부 임차 창고 2곳을 2027년 3월까지 모두 반납한다."),
    ("h1", "2. 현황 및 문제점"),
    ("p", "최근 3년간 평택 물류센터의 주요 운영 지표는 다음과 같다."),
    ("table", [["구분", "2022년", "2023년", "2024년"],
               ["일평균 출고량(박스)", "2,450", "2,810", "3,200"],
               ["출고 오류율(%)", "0.35", "0.39", "0.42"],
               ["외부 창고 임차료(백만원)", "180", "260", "340"]]),
    ("p", "물류혁신TF가 2025년 8월부터 10월까지 평택 물류센터의 작업 현황을 조사한 결과는 다음과 같다."),
    ("li", "피킹 작업의 85%를 작업자가 종이 출고지시서를 들고 직접 찾아 꺼내는 방식으로 하고 있다."),
    ("li", "2014년에 도입한 창고관리시스템(WMS)은 재고 변동이 실시간으로 반영되지 않아, 매월 재고 실사 때 이틀 동안 "
           "출고를 멈춘다."),
    ("li", "성수기인 11월과 12월에는 작업자 1인당 월평균 46시간의 연장근무가 발생한다."),
    ("li", "출고 오류의 약 70%는 비슷한 품번의 부품을 잘못 집는 오피킹에서 생긴다."),
    ("h1", "3. 추진 내용"),
    ("h2", "3.1 자동 창고(AS/RS) 도입"),
    ("p", "센터 동쪽 보관동에 높이 18단, 6열 구조의 자동 창고를 설치한다. 보관 셀은 모두 4,800개이며, 회전율이 높은 "
          "상위 1,200개 품목을 자동 창고로 옮긴다."),
    ("h2", "3.2 창고관리시스템(WMS) 전면 교체"),
    ("p", "기존 설치형 WMS를 클라우드형 WMS로 바꾸고 전사 ERP와 실시간으로 연동한다. 입고부터 출고까지 모든 단계에서 "
          "바코드를 읽도록 하여 재고 실사로 출고를 멈추는 일을 없앤다."),
    ("h2", "3.3 자율이동로봇(AMR) 피킹"),
    ("p", "자율이동로봇 12대를 도입하여 선반을 작업자 앞으로 가져오는 방식으로 피킹을 바꾼다. 로봇 충전소는 보관동 "
          "북쪽 벽면에 4곳을 둔다."),
    ("h2", "3.4 작업자 교육 및 직무 전환"),
    ("p", "이번 사업은 인력 감축 없이 추진한다. 피킹 작업자 가운데 8명은 재고관리와 출고 품질검사 직무로 옮기며, "
          "전환 대상자에게는 2026년 8월까지 직무교육 40시간을 제공한다."),
    ("h2", "3.5 안전 관리"),
    ("p", "로봇 주행 구역과 작업자 통로는 안전 펜스로 분리하고, 자동 창고 구역에는 비상정지 버튼을 20m 간격으로 "
          "설치한다. 시공 기간에는 시공사와 생산기술팀이 매주 1회 합동 안전점검을 한다."),
    ("h1", "4. 추진 일정"),
    ("table", [["단계", "기간", "주요 내용", "담당"],
               ["1단계 설계", "2026년 1월 ~ 3월", "상세 설계, 공개경쟁입찰로 시공사 선정", "물류혁신TF"],
               ["2단계 구축", "2026년 4월 ~ 8월", "자동 창고 설치, WMS 개발, AMR 도입", "시공사, IT기획팀"],
               ["3단계 시범운영", "2026년 9월 ~ 10월", "기존 방식과 병행 운영, 안정화", "평택 물류센터"],
               ["4단계 본격 가동", "2026년 11월", "전면 전환, 성수기 대응", "평택 물류센터"]]),
    ("p", "시스템 전환일은 출고량이 가장 적은 추석 연휴 기간으로 정하고, 구체적인 날짜는 2026년 7월에 확정한다."),
    ("h1", "5. 소요 예산"),
    ("table", [["항목", "금액(백만원)", "비고"],
               ["자동 창고(AS/RS)", "3,850", "설비 및 설치"],
               ["WMS 교체", "620", "3년 사용료 포함"],
               ["자율이동로봇(AMR)", "1,080", "12대, 대당 90백만원"],
               ["건물 보강 공사", "410", "바닥 하중 보강"],
               ["교육 및 예비비", "240", "예비비 150백만원 포함"],
               ["합계", "6,200", ""]]),
    ("p", "재원은 자체 자금 4,340백만원(70%)과 경기도 스마트물류 전환 지원사업 보조금 1,860백만원(30%)으로 마련한다. "
          "보조금은 2025년 12월에 신청하며, 선정 결과는 2026년 2월에 발표될 예정이다."),
    ("h1", "6. 기대 효과"),
    ("li", "외부 창고 임차료와 연장근무 수당이 줄어 연간 물류비가 약 9억원 절감된다."),
    ("li", "자체 자금 기준 투자 회수 기간은 약 4.8년이다."),
    ("li", "고객사가 요구하는 24시간 납품 리드타임을 맞출 수 있다."),
    ("li", "성수기 1인당 월평균 연장근무를 46시간에서 15시간 이하로 줄인다."),
    ("h1", "7. 위험 요인 및 대응"),
    ("li", "시스템 전환 중 출고 중단: 9월과 10월 두 달 동안 기존 방식과 병행 운영하고, 전환 후 2주간 시공사 기술자가 "
           "센터에 상주한다."),
    ("li", "설비 납기 지연: 시공사 계약서에 지연 1일당 계약금액의 0.1%를 지체상금으로 부과하는 조항을 둔다."),
    ("li", "보조금 미선정: 선정되지 않으면 AMR 도입을 2027년으로 미루고 1차 사업비를 5,120백만원으로 줄인다."),
    ("h1", "8. 향후 일정"),
    ("li", "투자심의위원회 상정: 2025년 12월 9일"),
    ("li", "이사회 보고: 2025년 12월 23일"),
    ("li", "시공사 입찰 공고: 2026년 1월 12일"),
    ("h1", "9. 추진 체계"),
    ("li", "총괄: SCM본부장(물류혁신TF장)"),
    ("li", "설비 및 시공 관리: 생산기술팀"),
    ("li", "시스템 개발 및 ERP 연동: IT기획팀"),
    ("li", "현장 운영 및 작업자 교육: 평택 물류센터장"),
    ("li", "예산 집행 및 보조금 관리: 재무팀"),
    ("h1", "10. 요청 사항"),
    ("p", "물류혁신TF는 투자심의위원회에 총사업비 6,200백만원의 투자 승인을 요청한다. 아울러 보조금 신청에 필요한 "
          "대표이사 명의의 사업 참여 확약서 발급을 함께 요청한다."),
]


# ---------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------
def build_hwpx(out: Path):
    return F.hwp_write(INFOSEC, out / FILES["hwpx"])


def build_hwp(out: Path):
    return F.hwp_write(RND, out / FILES["hwp"])


def render_scan(items, fonts, table, caption, *, size_pt=11.5, table_pt=10.5, dpi=200, **kw):
    """fmtlib.render_pages with one ruled table: the table is drawn under its caption line, in a gap that
    render_pages leaves for it. Returns (clean pages, the text drawn on each page)."""
    from PIL import ImageDraw, ImageFont
    px = lambda pt: int(round(pt / 72 * dpi))
    f_cell = ImageFont.truetype(str(fonts.regular), px(table_pt))
    f_head = ImageFont.truetype(str(fonts.bold), px(table_pt))
    row_h = int(px(table_pt) * 2.0)
    table_h = row_h * len(table)
    gap = (table_h + px(size_pt) * 0.6) / px(size_pt)
    items = [("gap", gap) if k == "TABLE" else (k, v) for k, v in items]
    calls = []
    orig = ImageDraw.ImageDraw.text

    def text(self, xy, t, *a, **k):
        calls.append((id(self.im), xy, t))
        return orig(self, xy, t, *a, **k)
    ImageDraw.ImageDraw.text = text
    try:
        pages = F.render_pages(items, fonts, dpi=dpi, size_pt=size_pt, **kw)
    finally:
        ImageDraw.ImageDraw.text = orig
    ids = [id(p.im) for p in pages]
    drawn = [[t for i, _, t in calls if i == pid and t != "•"] for pid in ids]
    # where the caption was drawn
    hit = [(ids.index(i), xy) for i, xy, t in calls if t == caption]
    assert len(hit) == 1, hit
    k, (_, cy) = hit[0]
    img = pages[k]
    d = ImageDraw.Draw(img)
    W, H = img.size
    mx, my = int(0.95 * dpi), int(0.9 * dpi)
    top = int(cy + px(size_pt) * 1.45 + px(size_pt) * 0.25)
    assert top + table_h < H - my, "table runs past the bottom margin"
    pad = px(table_pt) * 1.2
    nat = [max(d.textlength(r[j], font=f_head) for r in table) + 2 * pad for j in range(len(table[0]))]
    width = W - 2 * mx
    scale = width / sum(nat)
    cols = [n * scale for n in nat]
    xs = [mx]
    for c in cols:
        xs.append(xs[-1] + c)
    d.rectangle([mx, top, mx + width, top + row_h], fill=228)
    for r, row in enumerate(table):
        y0 = top + r * row_h
        for j, cell in enumerate(row):
            f = f_head if r == 0 else f_cell
            tw = d.textlength(cell, font=f)
            cx = xs[j] + (cols[j] - tw) / 2
            orig(d, (cx, y0 + (row_h - px(table_pt) * 1.1) / 2), cell, font=f, fill=25)
    for r in range(len(table) + 1):
        w = 3 if r in (0, len(table)) else (2 if r == 1 else 1)
        d.line([mx, top + r * row_h, mx + width, top + r * row_h], fill=25, width=w)
    for j, x in enumerate(xs):
        d.line([x, top, x, top + table_h], fill=25, width=3 if j in (0, len(xs) - 1) else 1)
    # record the table rows in reading order, right after the caption
    lines = drawn[k]
    at = lines.index(caption) + 1
    drawn[k] = lines[:at] + [" ".join(r) for r in table] + lines[at:]
    return pages, drawn


def build_scan(fonts_dir: Path, out: Path):
    fonts = F.Fonts(fonts_dir / "nanum/NanumMyeongjo.ttf", fonts_dir / "nanum/NanumMyeongjoBold.ttf")
    pages, drawn = render_scan(REMOTE, fonts, REMOTE_TABLE, REMOTE_CAPTION, size_pt=11.5, korean=True,
                               footer="- {page} -")
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=2591 + k)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


def _ko_font(style, name="맑은 고딕"):
    from docx.oxml.ns import qn
    rpr = style.element.get_or_add_rPr()
    fonts = rpr.find(qn("w:rFonts"))
    if fonts is None:
        fonts = rpr.makeelement(qn("w:rFonts"), {})
        rpr.insert(0, fonts)
    for a in ("w:eastAsia", "w:ascii", "w:hAnsi"):
        fonts.set(qn(a), name)
    for a in ("w:asciiTheme", "w:hAnsiTheme", "w:eastAsiaTheme"):
        if fonts.get(qn(a)) is not None:
            del fonts.attrib[qn(a)]


def build_docx(out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.3)
    doc.styles["Normal"].font.size = Pt(10.5)
    for s in ("Normal", "Title", "Heading 1", "Heading 2", "List Bullet"):
        _ko_font(doc.styles[s])
    sec.header.paragraphs[0].text = "주식회사 한결정밀 · 물류혁신TF · 대외비"
    sec.footer.paragraphs[0].text = "본 문서는 투자심의위원회 심의용이며, 승인 전 외부 배포를 금지합니다."
    for kind, v in PLAN:
        if kind == "title":
            doc.add_heading(v, level=0)
        elif kind == "meta":
            F.docx_table(doc, ["구분", "내용"], v, widths=[3.5, 12.5], size=10)
            doc.add_paragraph()
        elif kind == "h1":
            doc.add_heading(v, level=1)
        elif kind == "h2":
            doc.add_heading(v, level=2)
        elif kind == "p":
            doc.add_paragraph(v)
        elif kind == "li":
            doc.add_paragraph(v, style="List Bullet")
        elif kind == "table":
            F.docx_table(doc, v[0], v[1:], size=10)
            doc.add_paragraph()
    F.docx_core(doc, "2026년 평택 물류센터 자동화 구축 사업계획서", "물류센터 자동화 투자", "물류혁신TF",
                "평택 물류센터, 자동 창고, WMS, AMR")
    path = out / FILES["docx"]
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ")
    return re.sub(r"\s+", "", s)


def read_units(path: Path):
    """Return (units, pages): units = list of (location, text) in reading order; pages = list of page texts."""
    ext = path.suffix.lower()
    units: list[tuple[str, str]] = []
    if ext in (".hwpx", ".hwp"):
        from hwpx import HwpxDocument
        d = HwpxDocument.open(path)
        head = None
        for p in d.paragraphs:
            t = p.text if isinstance(p.text, str) else str(p.text)
            if not t.strip() and not p.tables:
                continue
            m = re.match(r"^(제\d+조(?:의\d+)?)[ (]", t)
            if str(p.style_id_ref) not in ("0", "None", ""):  # a heading (add_heading styles)
                head = t.strip()
            elif m:
                head = m.group(1)
            for tb in p.tables:
                for r in range(tb.row_count):
                    units.append((head or "", " ".join(tb.cell(r, c).text for c in range(tb.column_count))))
            if t.strip():
                units.append((head or "", t))
        return units, None
    if ext == ".docx":
        from docx import Document
        from docx.table import Table
        from docx.text.paragraph import Paragraph
        d = Document(path)
        head = ""
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                units.append((head, p.text))
            elif tag == "tbl":
                t = Table(el, d)
                for row in t.rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        return units, None
    if ext == ".pdf":
        from pypdf import PdfReader
        r = PdfReader(path)
        assert not "".join((pg.extract_text() or "") for pg in r.pages).strip(), f"{path.name} has a text layer"
        pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))[path.name]
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def check_qa(out: Path, qa: Path):
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {}
    bad = 0
    ids = set()
    for it in items:
        assert it["id"] not in ids, it["id"]
        ids.add(it["id"])
        f = out / it["file"]
        assert f.exists(), it["file"]
        if it["file"] not in cache:
            cache[it["file"]] = read_units(f)
        units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            assert it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None, it
            continue
        ans, ev = norm(it["answer"]), norm(it["evidence"])
        if pages is not None:
            assert it["pages"] and it["location"] is None, it["id"]
            text = norm(" ".join(pages[p - 1] for p in it["pages"]))
            ok = ev in text and ans in ev
            where = it["pages"]
        else:
            assert it["pages"] == [] and it["location"], it["id"]
            loc = it["location"]
            scope = [t for l, t in units if l == loc] or [t for l, t in units if norm(l) == norm(loc)]
            # the evidence is one whole unit (sentence, paragraph, list item, table row) or part of one;
            # the answer is in the evidence or in the same unit (a table row: the answer may be another cell)
            hits = [t for t in scope if ev in norm(t)]
            ok = bool(hits) and any(ans in ev or ans in norm(t) for t in hits)
            where = loc
        if not ok:
            bad += 1
            print(f"  FAIL {it['id']} {it['file']} @ {where}: answer/evidence not found\n      {it['evidence']}")
    print(f"  QA: {len(items)} items checked, {bad} failures")
    assert bad == 0


def verify_extra(out: Path):
    """Besides fmtlib.verify: the HWP is an OLE compound file (HWP 5.0), the HWPX a zip with OWPML parts."""
    import zipfile
    import olefile
    hwp = out / FILES["hwp"]
    assert olefile.isOleFile(str(hwp)), "HWP is not an OLE file"
    ole = olefile.OleFileIO(str(hwp))
    streams = ["/".join(s) for s in ole.listdir()]
    hdr = ole.openstream("FileHeader").read(32)
    ole.close()
    assert hdr.startswith(b"HWP Document File"), hdr
    assert "BodyText/Section0" in streams, streams
    z = zipfile.ZipFile(out / FILES["hwpx"])
    names = z.namelist()
    assert names[0] == "mimetype" and z.read("mimetype") == b"application/hwp+zip", names[:3]
    assert "Contents/section0.xml" in names, names
    print(f"  ok  HWP OLE streams: {', '.join(streams)}")
    print(f"  ok  HWPX parts: {len(names)} ({', '.join(n for n in names if n.startswith('Contents/'))})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--qa", default=HERE.parent / "rag_formats_dev_ko.jsonl", type=Path)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(a.out))
    print(build_hwp(a.out))
    print(build_scan(a.fonts, a.out))
    print(build_docx(a.out))
    (HERE / "scan_pages.json").write_text(json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    F.verify(a.out)
    verify_extra(a.out)
    total = sum(p.stat().st_size for p in a.out.iterdir())
    assert total < 2e6, total
    for p in sorted(a.out.iterdir()):
        print(f"  sha256 {hashlib.sha256(p.read_bytes()).hexdigest()[:16]}  {p.name}")
    if a.qa.exists():
        check_qa(a.out, a.qa)
    else:
        print(f"  (no QA file at {a.qa})")


if __name__ == "__main__":
    main()
